entry @mm_kernel(%arg0: tile<ptr<i32>>, %arg1: tile<i32>, %arg2: tile<ptr<i32, <multicast>>>) {
  %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
  %tview = make_tensor_view %arg0, shape = [%arg1], strides = [1] : tile<i32> -> tensor_view<?xi32, strides=[1]>
  %pview = make_partition_view %tview : partition_view<tile=(128), tensor_view<?xi32, strides=[1]>>
  %tview_0 = make_tensor_view %arg2, shape = [%arg1], strides = [1] : tile<ptr<i32, <multicast>>>, tile<i32> -> tensor_view<?xi32, strides=[1], #cuda_tile.ptr_attr<multicast>>
  %pview_1 = make_partition_view %tview_0 : partition_view<tile=(128), tensor_view<?xi32, strides=[1], #cuda_tile.ptr_attr<multicast>>>
  %tile, %result_token = load_view_tko weak %pview[%blockId_x] : partition_view<tile=(128), tensor_view<?xi32, strides=[1]>>, tile<i32> -> tile<128xi32>, token
  %0 = multimem_reduce_view_tko relaxed tl_blk %pview_1, %tile[%blockId_x] token = %result_token inbounds = [true] attributes {reduction = #cuda_tile.multimem_reduction_kind<umax>} : partition_view<tile=(128), tensor_view<?xi32, strides=[1], #cuda_tile.ptr_attr<multicast>>>, tile<128xi32>, tile<i32>, token -> token
  return
}
