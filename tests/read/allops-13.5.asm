global  @gcount alignment = 16 <i32: [0, 1, 2, 3]> : tile<4xi32>
entry @allops_kernel(%arg0: tile<ptr<f32>>, %arg1: tile<i32>, %arg2: tile<ptr<f32>>) optimization_hints=<sm_100 = {num_cta_in_cga = 1, num_worker_warps_per_cta = 4, occupancy = 2}> {
  %0 = make_token : token
  %cst_f32 = constant <f32: 1.500000e+00> : tile<8xf32>
  %cst_i32 = constant <i32: [0, 1, 2, 3, 4, 5, 6, 7]> : tile<8xi32>
  %cst_1_i32 = constant <i32: 1> : tile<i32>
  %cst_0_i32 = constant <i32: 0> : tile<i32>
  %cst_2_f32 = constant <f32: 2.000000e+00> : tile<f32>
  %true = constant <i1: true> : tile<8xi1>
  %cst_i1 = constant <i1: [true, false, true, false, false, true, false, true]> : tile<8xi1>
  %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
  %gridSize_x, %gridSize_y, %gridSize_z = get_num_tile_blocks : tile<i32>
  %1 = absf %cst_f32 : tile<8xf32>
  %2 = ceil %1 : tile<8xf32>
  %3 = cos %2 : tile<8xf32>
  %4 = cosh %3 : tile<8xf32>
  %5 = floor %4 : tile<8xf32>
  %6 = log %5 : tile<8xf32>
  %7 = log2 %6 : tile<8xf32>
  %8 = negf %7 : tile<8xf32>
  %9 = sin %8 : tile<8xf32>
  %10 = sinh %9 : tile<8xf32>
  %11 = tan %10 : tile<8xf32>
  %12 = exp %11 rounding<approx> : tile<8xf32>
  %13 = exp2 %12 flush_to_zero : tile<8xf32>
  %14 = rsqrt %13 flush_to_zero : tile<8xf32>
  %15 = sqrt %14 rounding<approx> flush_to_zero : tile<8xf32>
  %16 = tanh %15 rounding<approx> : tile<8xf32>
  %17 = addf %16, %cst_f32 rounding<zero> : tile<8xf32>
  %18 = subf %17, %cst_f32  flush_to_zero : tile<8xf32>
  %19 = mulf %18, %cst_f32 rounding<positive_inf> : tile<8xf32>
  %20 = divf %19, %cst_f32 rounding<full> : tile<8xf32>
  %21 = remf %20, %cst_f32 : tile<8xf32>
  %22 = maxf %21, %cst_f32 propagate_nan : tile<8xf32>
  %23 = minf %22, %cst_f32 flush_to_zero : tile<8xf32>
  %24 = fpowf %23, %cst_f32 : tile<8xf32>
  %25 = fma %24, %cst_f32, %cst_f32 rounding<negative_inf> : tile<8xf32>
  %26 = atan2 %25, %cst_f32 : tile<8xf32>
  %27 = fpowi %26, %cst_i32 : tile<8xf32>, tile<8xi32>
  %28 = cmpf less_than ordered %27, %cst_f32 : tile<8xf32> -> tile<8xi1>
  %29 = select %28, %27, %cst_f32 : tile<8xi1>, tile<8xf32>
  %30 = absi %cst_i32 : tile<8xi32>
  %31 = addi %30, %cst_i32 overflow<no_signed_wrap> : tile<8xi32>
  %32 = subi %31, %cst_i32 : tile<8xi32>
  %33 = muli %32, %cst_i32 overflow<no_unsigned_wrap> : tile<8xi32>
  %34 = divi %33, %cst_i32 signed : tile<8xi32>
  %35 = remi %34, %cst_i32 unsigned : tile<8xi32>
  %36 = andi %35, %cst_i32 : tile<8xi32>
  %37 = ori %36, %cst_i32 : tile<8xi32>
  %38 = xori %37, %cst_i32 : tile<8xi32>
  %39 = shli %38, %cst_i32 overflow<no_wrap> : tile<8xi32>
  %40 = shri %39, %cst_i32 signed : tile<8xi32>
  %41 = maxi %40, %cst_i32 signed : tile<8xi32>
  %42 = mini %41, %cst_i32 unsigned : tile<8xi32>
  %43 = mulhii %42, %cst_i32 : tile<8xi32>
  %44 = negi %43 overflow<no_signed_wrap> : tile<8xi32>
  %45 = cmpi not_equal %44, %cst_i32, signed : tile<8xi32> -> tile<8xi1>
  assert %45, "z differs from xi" : tile<8xi1>
  %46 = bitcast %29 : tile<8xf32> -> tile<8xi32>
  %47 = exti %46 signed : tile<8xi32> -> tile<8xi64>
  %48 = trunci %47 : tile<8xi64> -> tile<8xi32>
  %49 = ftof %29  : tile<8xf32> -> tile<8xf16>
  %50 = ftoi %29 signed  saturating : tile<8xf32> -> tile<8xi32>
  %51 = itof %50 signed  : tile<8xi32> -> tile<8xf32>
  %52 = iota : tile<8xi32>
  %reshape = reshape %cst_2_f32 : tile<f32> -> tile<1xf32>
  %bcast = broadcast %reshape : tile<1xf32> -> tile<8xf32>
  %reshape_0 = reshape %29 : tile<8xf32> -> tile<2x4xf32>
  %53 = permute %reshape_0 [1, 0] : tile<2x4xf32> -> tile<4x2xf32>
  %54 = cat %29, %cst_f32 dim = 0 : tile<8xf32>, tile<8xf32> -> tile<16xf32>
  %55 = extract %54[%cst_0_i32] : tile<16xf32> -> tile<8xf32>
  %56 = insert %55, %54[%cst_1_i32] : tile<8xf32>, tile<16xf32>
  %assume = assume div_by<16>, %arg0 : tile<ptr<f32>>
  %assume_1 = assume bounded<0, ?>, %arg1 : tile<i32>
  %assume_2 = assume div_by<4, every 2 along 0>, %52 : tile<8xi32>
  %assume_cst_i32 = assume same_elements<[2]>, %cst_i32 : tile<8xi32>
  %reshape_3 = reshape %assume : tile<ptr<f32>> -> tile<1xptr<f32>>
  %bcast_4 = broadcast %reshape_3 : tile<1xptr<f32>> -> tile<8xptr<f32>>
  %57 = offset %bcast_4, %52 : tile<8xptr<f32>>, tile<8xi32> -> tile<8xptr<f32>>
  %58 = ptr_to_int %57 : tile<8xptr<f32>> -> tile<8xi64>
  %59 = int_to_ptr %58 : tile<8xi64> -> tile<8xptr<f32>>
  %60 = ptr_to_ptr %59 : tile<8xptr<f32>> -> tile<8xptr<i32>>
  %result, %result_token = load_ptr_tko relaxed device %59, %true, %cst_f32 token=%0 optimization_hints = <sm_100 = {allow_tma = false, latency = 3}> : tile<8xptr<f32>>, tile<8xi1>, tile<8xf32> -> tile<8xf32>, token
  %result_5, %result_token_6 = load_ptr_tko weak %59 : tile<8xptr<f32>> -> tile<8xf32>, token
  %61 = store_ptr_tko release tl_blk %59, %result, %cst_i1 token=%result_token : tile<8xptr<f32>>, tile<8xf32>, tile<8xi1> -> token
  %result_7, %result_token_8 = atomic_cas_tko acq_rel device %60, %cst_i32, %44, %true token=%61 : tile<8xptr<i32>>, tile<8xi32>, tile<8xi1> -> tile<8xi32>, token
  %result_9, %result_token_10 = atomic_rmw_tko relaxed sys %60, add, %cst_i32 : tile<8xptr<i32>>, tile<8xi32> -> tile<8xi32>, token
  %62 = join_tokens %result_token_6, %result_token_8, %result_token_10 : token
  %tview = make_tensor_view %assume, shape = [%assume_1], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
  %63 = get_tensor_shape %tview : tensor_view<?xf32, strides=[1]> -> tile<i32>
  %pview = make_partition_view %tview : partition_view<tile=(8), padding_value = zero, tensor_view<?xf32, strides=[1]>>
  %64 = get_index_space_shape %pview : partition_view<tile=(8), padding_value = zero, tensor_view<?xf32, strides=[1]>> -> tile<i32>
  %tile, %result_token_11 = load_view_tko acquire device %pview[%blockId_x] token = %62 optimization_hints = <sm_100 = {allow_tma = false, latency = 3}> inbounds = [true] : partition_view<tile=(8), padding_value = zero, tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<8xf32>, token
  %65 = store_view_tko weak %tile, %pview[%blockId_x] token = %result_token_11 : tile<8xf32>, partition_view<tile=(8), padding_value = zero, tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
  %tview_12 = make_tensor_view %assume, shape = [%assume_1, 16], strides = [16, 1] : tile<i32> -> tensor_view<?x16xf32, strides=[16,1]>
  %pview_13 = make_partition_view %tview_12 : partition_view<tile=(4x8), tensor_view<?x16xf32, strides=[16,1]>, dim_map=[1, 0]>
  %tile_14, %result_token_15 = load_view_tko weak %pview_13[%blockId_x, %blockId_y] : partition_view<tile=(4x8), tensor_view<?x16xf32, strides=[16,1]>, dim_map=[1, 0]>, tile<i32> -> tile<4x8xf32>, token
  %66 = get_global @gcount : tile<ptr<i32>>
  %67 = print_tko "block %d: %f\0A", %blockId_x, %29 token=%65 : tile<i32>, tile<8xf32> -> token
  %cst_1_f16 = constant <f16: 1.000000e+00> : tile<16x16xf16>
  %cst_0_f32 = constant <f32: 0.000000e+00> : tile<16x16xf32>
  %68 = mmaf %cst_1_f16, %cst_1_f16, %cst_0_f32 fast_acc : tile<16x16xf16>, tile<16x16xf16>, tile<16x16xf32>
  %cst_1_i8 = constant <i8: 1> : tile<16x32xi8>
  %cst_2_i8 = constant <i8: 2> : tile<32x16xi8>
  %cst_0_i32_16 = constant <i32: 0> : tile<16x16xi32>
  %69 = mmai %cst_1_i8, %cst_2_i8, %cst_0_i32_16 signed unsigned : tile<16x32xi8>, tile<32x16xi8>, tile<16x16xi32>
  %for = for unsigned %loopIdx in (%cst_0_i32 to %arg1, step %cst_1_i32) : tile<i32> iter_values(%iterArg0 = %cst_f32) -> (tile<8xf32>) {
    %82 = addf %iterArg0, %29  : tile<8xf32>
    continue %82 : tile<8xf32>
  }
  %70 = loop iter_values(%arg3 = %cst_0_i32) : tile<i32> -> tile<i32> {
    %82 = addi %arg3, %cst_1_i32 : tile<i32>
    %83 = cmpi greater_than_or_equal %82, %arg1, signed : tile<i32> -> tile<i1>
    if %83 {
      break %82 : tile<i32>
    } else {
    }
    continue %82 : tile<i32>
  }
  %71 = cmpi equal %blockId_x, %cst_0_i32, signed : tile<i32> -> tile<i1>
  %72 = if %71 -> (tile<f32>) {
    yield %cst_2_f32 : tile<f32>
  } else {
    %82 = negf %cst_2_f32 : tile<f32>
    yield %82 : tile<f32>
  }
  %reduce = reduce %for dim=0 identities=[0.000000e+00 : f32] : tile<8xf32> -> tile<f32> 
  (%reduce_lhs: tile<f32>, %reduce_rhs: tile<f32>) {
    %82 = addf %reduce_lhs, %reduce_rhs  : tile<f32>
    yield %82 : tile<f32>
  }
  %73 = scan %cst_i32 dim=0 reverse=true identities=[-1 : i32] : tile<8xi32> -> tile<8xi32> 
  (%arg3: tile<i32>, %arg4: tile<i32>) {
    %82 = maxi %arg3, %arg4 signed : tile<i32>
    yield %82 : tile<i32>
  }
  %74 = pack %29 : tile<8xf32> -> tile<32xi8>
  %75 = unpack %74 : tile<32xi8> -> tile<8xf32>
  %76 = alloca num_elem = 64, alignment = 16 global : tile<ptr<f32>>
  %cst_1_f8E8M0FNU = constant <f8E8M0FNU: 1.000000e+00> : tile<16x2xf8E8M0FNU>
  %cst_1_f8E4M3FN = constant <f8E4M3FN: 1.000000e+00> : tile<16x64xf8E4M3FN>
  %cst_1_f8E4M3FN_17 = constant <f8E4M3FN: 1.000000e+00> : tile<64x16xf8E4M3FN>
  %cst_1_f8E8M0FNU_18 = constant <f8E8M0FNU: 1.000000e+00> : tile<2x16xf8E8M0FNU>
  %77 = mmaf_scaled %cst_1_f8E4M3FN, %cst_1_f8E4M3FN_17, %cst_0_f32, %cst_1_f8E8M0FNU, %cst_1_f8E8M0FNU_18 : tile<16x64xf8E4M3FN>, tile<64x16xf8E4M3FN>, tile<16x16xf32>, tile<16x2xf8E8M0FNU>, tile<2x16xf8E8M0FNU>
  %gsview = make_gather_scatter_view %tview : gather_scatter_view<tile=(8), padding_value = neg_inf, tensor_view<?xf32, strides=[1]>, sparse_dim=0>
  %sview = make_strided_view %tview : strided_view<tile=(8), traversal_strides=[2], tensor_view<?xf32, strides=[1]>>
  %pview_19 = make_partition_view %tview : partition_view<tile=(8), tensor_view<?xf32, strides=[1]>>
  %78 = atomic_red_view_tko relaxed device %pview_19[%blockId_x], addf, %29 token = %67 inbounds = [true] : tile<8xf32>, partition_view<tile=(8), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
  %79 = gdc_wait_tko token = %67 -> token
  %80 = gdc_launch_dependents_tko -> token
  %81 = memory_fence_alias_tko %79
  return
}
