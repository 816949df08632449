entry @k(%arg0: tile<ptr<f32>>, %arg1: tile<i32>) {
  %0 = make_token : token
  %cst_0_i32 = constant <i32: 0> : tile<i32>
  %cst_1_i32 = constant <i32: 1> : tile<i32>
  %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
  %tview = make_tensor_view %arg0, shape = [128], strides = [1] : tensor_view<128xf32, strides=[1]>
  %pview = make_partition_view %tview : partition_view<tile=(8), tensor_view<128xf32, strides=[1]>>
  loop {
    %2 = cmpi less_than %blockId_x, %arg1, signed : tile<i32> -> tile<i1>
    if %2 {
      break
    } else {
    }
  }
  for %loopIdx in (%cst_0_i32 to %arg1, step %cst_1_i32) : tile<i32> {
    %2 = addi %loopIdx, %cst_1_i32 : tile<i32>
  }
  %1 = cmpi equal %blockId_x, %cst_0_i32, signed : tile<i32> -> tile<i1>
  if %1 {
    %2 = addi %blockId_x, %cst_1_i32 : tile<i32>
  } else {
  }
  return
}
