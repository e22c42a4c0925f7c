// Signal ops sized by graph inputs read at call time (issue 19 item 3).

// A window's size given at call time: the output's extent is the size read
// on the host (checked not negative per call, the extent kept >= 0 so the
// check's message is the refusal), and the kernel reads the size as data,
// computing the cosine sum in double (symmetric: N - 1, at least 1) and
// converting it to output_datatype.
// RUN: /usr/bin/python3 %S/make_signal_model.py window_runtime %t.w.onnx
// RUN: kiln-import-onnx %t.w.onnx | FileCheck %s --check-prefix=WINDOW
// WINDOW-DAG:    #[[SCALAR:.*]] = affine_map<(d0) -> ()>
// WINDOW-LABEL:  func.func @main_graph(
// WINDOW-SAME:     %[[SIZE:.*]]: tensor<i64> {kiln.name = "size"}) -> (tensor<?xf32> {kiln.name = "hann"}, tensor<?xf64> {kiln.name = "blackman"})
// WINDOW:          %[[E:.*]] = tensor.extract %[[SIZE]][] : tensor<i64>
// WINDOW-NEXT:     %[[N:.*]] = arith.index_cast %[[E]] : i64 to index
// WINDOW:          %[[OK:.*]] = arith.cmpi sge, %[[N]], %{{.*}} : index
// WINDOW-NEXT:     cf.assert %[[OK]], "node 'HannWindow#0' (HannWindow): size must not be negative"
// WINDOW-NEXT:     %[[EXTENT:.*]] = arith.maxsi %[[N]], %{{.*}} : index
// WINDOW-NEXT:     %[[EMPTY:.*]] = tensor.empty(%[[EXTENT]]) : tensor<?xf32>
// WINDOW-NEXT:     linalg.generic {indexing_maps = [#[[SCALAR]], {{.*}}]{{.*}} ins(%[[SIZE]] : tensor<i64>) outs(%[[EMPTY]] : tensor<?xf32>)
// WINDOW-NEXT:     ^bb0(%[[IN:.*]]: i64, %{{.*}}: f32):
// WINDOW:            arith.maxsi %[[IN]], %{{.*}} : i64
// WINDOW:            math.cos %{{.*}} : f64
// WINDOW:            arith.truncf %{{.*}} : f64 to f32
// WINDOW:          cf.assert %{{.*}}, "node 'BlackmanWindow#1' (BlackmanWindow): size must not be negative"
// WINDOW:          linalg.generic {{.*}} ins(%[[SIZE]] : tensor<i64>) outs(%{{.*}} : tensor<?xf64>)
// WINDOW-NEXT:     ^bb0(%[[SIN:.*]]: i64, %{{.*}}: f64):
// WINDOW-NEXT:       %[[ONE:.*]] = arith.constant 1 : i64
// WINDOW-NEXT:       arith.subi %[[SIN]], %[[ONE]] : i64
// WINDOW-COUNT-2:    math.cos %{{.*}} : f64
// WINDOW-NOT:        arith.truncf
// WINDOW:            linalg.yield %{{.*}} : f64

// Compiled, the shape program reads the size's parts, the output's extent
// is their difference and each node's check keeps its message.
// RUN: kiln-compile %t.w.onnx --target-device=cpu -o %t.w.kiln
// RUN: kiln-dump-module %t.w.kiln | FileCheck %s --check-prefix=WMODULE
// WMODULE:      function 'main_graph' (i64) -> (?xf32, ?xf64)
// WMODULE-DAG:  [[POS:n[0-9]+]] = element+ input0.value[0]
// WMODULE-DAG:  [[NEG:n[0-9]+]] = element- input0.value[0]
// WMODULE-DAG:  [[LEN:n[0-9]+]] = sub {{n[0-9]+}}, [[NEG]]
// WMODULE:      check {{.*}}: node 'HannWindow#0' (HannWindow): size must not be negative
// WMODULE:      check {{.*}}: node 'BlackmanWindow#1' (BlackmanWindow): size must not be negative
// WMODULE:      output 0 shape [[[LEN]]]
// WMODULE:      output 1 shape [[[LEN]]]

// STFT with frame_step and frame_length given at call time: both checked
// per call, the frame count (37 - length) / step + 1 and the bins
// length / 2 + 1 computed on the host from the clamped values, the framing
// kernel reading the step as data and the DFT one generic summing over the
// frame, reading the length as data.
// RUN: /usr/bin/python3 %S/make_signal_model.py stft_runtime %t.s.onnx
// RUN: kiln-import-onnx %t.s.onnx | FileCheck %s --check-prefix=STFT
// STFT-LABEL:  func.func @main_graph(
// STFT-SAME:     %[[SIGNAL:.*]]: tensor<1x37x1xf32> {kiln.name = "signal"}, %[[STEP:.*]]: tensor<i64> {kiln.name = "step"}, %[[LENGTH:.*]]: tensor<i64> {kiln.name = "length"}) -> (tensor<1x?x?x2xf32> {kiln.name = "y"})
// STFT:          cf.assert %{{.*}}, "node 'STFT#0' (STFT): frame_step must be at least 1"
// STFT:          cf.assert %{{.*}}, "node 'STFT#0' (STFT): frame_length must be from 1 to the signal's length 37"
// STFT:          %[[FRAMES:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// STFT:          %[[BINS:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// STFT:          %[[FEMPTY:.*]] = tensor.empty(%[[FRAMES]], %{{.*}}) : tensor<1x?x?x1xf32>
// STFT-NEXT:     %[[FRAMED:.*]] = linalg.generic {{.*}} ins(%[[STEP]] : tensor<i64>) outs(%[[FEMPTY]] : tensor<1x?x?x1xf32>)
// STFT:            tensor.extract %[[SIGNAL]]
// STFT:          tensor.empty(%{{.*}}, %[[BINS]]) : tensor<1x?x?x2xf32>
// STFT:          linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%[[FRAMED]], %[[LENGTH]] : tensor<1x?x?x1xf32>, tensor<i64>)
// STFT:            arith.remui
// STFT:            math.cos %{{.*}} : f64
// STFT:            math.sin %{{.*}} : f64

// Compiled, the shape program reads both inputs and keeps the checks.
// RUN: kiln-compile %t.s.onnx --target-device=cpu -o %t.s.kiln
// RUN: kiln-dump-module %t.s.kiln | FileCheck %s --check-prefix=SMODULE
// SMODULE:      function 'main_graph' (1x37x1xf32, i64, i64) -> (1x?x?x2xf32)
// SMODULE-DAG:  element+ input1.value[0]
// SMODULE-DAG:  element+ input2.value[0]
// SMODULE:      check {{.*}}: node 'STFT#0' (STFT): frame_step must be at least 1
// SMODULE:      check {{.*}}: node 'STFT#0' (STFT): frame_length must be from 1 to the signal's length 37
