entry @k(%arg0: tile<ptr<f32>>, %arg1: tile<i32>) {
  %0 = make_token : token
  %cst_0_i32 = constant <i32: 0> : tile<i32>
  %cst_1_i32 = constant <i32: 1> : tile<i32>
  %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
  %tview = make_tensor_view %arg0, shape = [128], strides = [1] : tensor_view<128xf32, strides=[1]>
  %pview = make_partition_view %tview : partition_view<tile=(8), tensor_view<128xf32, strides=[1]>>
  %tile, %result_token = load_view_tko relaxed device %pview[%blockId_x] : partition_view<tile=(8), tensor_view<128xf32, strides=[1]>>, tile<i32> -> tile<8xf32>, token
  %tile_0, %result_token_1 = load_view_tko acquire sys %pview[%blockId_x] token = %0 optimization_hints = <sm_100 = {allow_tma = false, latency = 3}> inbounds = [true] : partition_view<tile=(8), tensor_view<128xf32, strides=[1]>>, tile<i32> -> tile<8xf32>, token
  %1 = store_view_tko release sys %tile, %pview[%blockId_x] token = %result_token inbounds = [true] : tile<8xf32>, partition_view<tile=(8), tensor_view<128xf32, strides=[1]>>, tile<i32> -> token
  %2 = store_view_tko weak %tile_0, %pview[%blockId_x] optimization_hints = <sm_90 = {latency = 2}> : tile<8xf32>, partition_view<tile=(8), tensor_view<128xf32, strides=[1]>>, tile<i32> -> token
  %3 = atomic_red_view_tko relaxed device %pview[%blockId_x], addf, %tile : tile<8xf32>, partition_view<tile=(8), tensor_view<128xf32, strides=[1]>>, tile<i32> -> token
  %4 = join_tokens %result_token_1, %1, %2, %3 : token
  %5 = print_tko "hello \22x\22\0A" -> token
  %tview_2 = make_tensor_view %arg0, shape = [%arg1], strides = [%cst_1_i32] : tile<i32> -> tensor_view<?xf32, strides=[?]>
  %6 = get_tensor_shape %tview_2 : tensor_view<?xf32, strides=[?]> -> tile<i32>
  return
}
