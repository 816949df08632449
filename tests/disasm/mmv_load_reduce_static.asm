entry @mm_kernel(%arg0: tile<ptr<f32, <multicast>>>, %arg1: tile<i32>, %arg2: tile<ptr<f32>>) {
  %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
  %tview = make_tensor_view %arg0, shape = [128], strides = [1] : tile<ptr<f32, <multicast>>> -> tensor_view<128xf32, strides=[1], #cuda_tile.ptr_attr<multicast>>
  %pview = make_partition_view %tview : partition_view<tile=(128), tensor_view<128xf32, strides=[1], #cuda_tile.ptr_attr<multicast>>>
  %tview_0 = make_tensor_view %arg2, shape = [%arg1], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
  %pview_1 = make_partition_view %tview_0 : partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>
  %reduced_values, %result_token = multimem_load_reduce_view_tko weak %pview[%blockId_x]  : partition_view<tile=(128), tensor_view<128xf32, strides=[1], #cuda_tile.ptr_attr<multicast>>>, tile<i32> -> tile<128xf32>, token
  %0 = store_view_tko weak %reduced_values, %pview_1[%blockId_x] token = %result_token : tile<128xf32>, partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
  return
}
