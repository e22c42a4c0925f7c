// TfIdfVectorizer: the constant pool becomes tables indexed by output
// coordinate and slot (here coordinate 1 holds two n-grams: the unigram 3
// and the bigram (6, 7)), and one generic over (row, coordinate, slot,
// start, distance) reads the row's first token through its map, the
// distance from a table of 1 .. 5 (max_skip_count 5, bounded by a row of
// 6), and the rest of the n-gram with tensor.extract, counting in i64.
// RUN: /usr/bin/python3 %S/make_tfidf_model.py %t
// RUN: kiln-import-onnx %t.tfidf_batch.onnx | FileCheck %s
// CHECK-DAG:   #[[ROWSTART:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d3)>
// CHECK-DAG:   #[[DIST:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d4)>
// CHECK-DAG:   #[[SLOT:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d2)>
// CHECK-DAG:   #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1)>
// CHECK-LABEL: func.func @main_graph(
// CHECK-SAME:    %[[X:.*]]: tensor<2x6xi64> {kiln.name = "x"}) -> (tensor<2x6xf32> {kiln.name = "y"})
// CHECK-DAG:     %[[DISTS:.*]] = arith.constant dense<[1, 2, 3, 4, 5]> : tensor<5xi64>
// CHECK-DAG:     %[[LENS:.*]] = arith.constant dense<{{\[\[}}1, 0], [1, 2], [1, 0], [1, 0], [2, 0], [2, 0]]> : tensor<6x2xi64>
// CHECK-DAG:     %[[TOK0:.*]] = arith.constant dense<{{\[\[}}2, 0], [3, 6], [5, 0], [4, 0], [5, 0], [7, 0]]> : tensor<6x2xi64>
// CHECK-DAG:     %[[TOK1:.*]] = arith.constant dense<{{\[\[}}0, 0], [0, 7], [0, 0], [0, 0], [6, 0], [8, 0]]> : tensor<6x2xi64>
// CHECK:         %[[ZEROS:.*]] = linalg.fill ins(%{{.*}} : i64) outs(%{{.*}} : tensor<2x6xi64>)
// CHECK:         %[[COUNTS:.*]] = linalg.generic {indexing_maps = [#[[ROWSTART]], #[[DIST]], #[[SLOT]], #[[SLOT]], #[[SLOT]], #[[OUT]]], iterator_types = ["parallel", "parallel", "reduction", "reduction", "reduction"]}
// CHECK-SAME:      ins(%[[X]], %[[DISTS]], %[[LENS]], %[[TOK0]], %[[TOK1]] : {{.*}}) outs(%[[ZEROS]] : tensor<2x6xi64>)
// CHECK-NEXT:    ^bb0(%[[FIRST:.*]]: i64, %{{.*}}: i64, %{{.*}}: i64, %[[T0:.*]]: i64, %[[T1:.*]]: i64, %[[ACC:.*]]: i64):
// CHECK:           arith.cmpi eq, %[[FIRST]], %[[T0]] : i64
// CHECK:           %[[POS:.*]] = arith.minsi %{{.*}}, %c5 : index
// CHECK:           %[[SECOND:.*]] = tensor.extract %[[X]][%{{.*}}, %[[POS]]] : tensor<2x6xi64>
// CHECK:           arith.cmpi eq, %[[SECOND]], %[[T1]] : i64
// CHECK:           %[[ONE:.*]] = arith.extui %{{.*}} : i1 to i64
// CHECK:           %[[SUM:.*]] = arith.addi %[[ACC]], %[[ONE]] : i64
// CHECK-NEXT:      linalg.yield %[[SUM]] : i64
// TFIDF: each coordinate's count times its weight.
// CHECK:         %[[W:.*]] = arith.constant dense<[5.000000e-01, 1.000000e+00, 1.500000e+00, 2.000000e+00, 2.500000e+00, 3.000000e+00]> : tensor<6xf32>
// CHECK:         linalg.generic {{.*}} ins(%[[COUNTS]], %[[W]] : tensor<2x6xi64>, tensor<6xf32>)
// CHECK:           arith.sitofp %{{.*}} : i64 to f32
// CHECK-NEXT:      arith.mulf

// Hostile attributes are one-line errors naming the node.
// RUN: not kiln-import-onnx %t.tfidf_counts_past_pool.onnx 2>&1 | FileCheck %s --check-prefix=PAST
// PAST: error: node 'tfidf' (TfIdfVectorizer): ngram_counts[1] = 11 is outside the pool of 10 items
// PAST-NOT: error
// RUN: not kiln-import-onnx %t.tfidf_counts_decrease.onnx 2>&1 | FileCheck %s --check-prefix=DEC
// DEC: error: node 'tfidf' (TfIdfVectorizer): ngram_counts must not decrease, but [0] = 4 and [1] = 0
// RUN: not kiln-import-onnx %t.tfidf_ragged_bigrams.onnx 2>&1 | FileCheck %s --check-prefix=RAGGED
// RAGGED: error: node 'tfidf' (TfIdfVectorizer): ngram_counts gives the 2-grams 5 pool items, not a multiple of 2
// RUN: not kiln-import-onnx %t.tfidf_indexes_misfit.onnx 2>&1 | FileCheck %s --check-prefix=IDX
// IDX: error: node 'tfidf' (TfIdfVectorizer): ngram_indexes has 6 entries for the pool's 7 n-grams
// RUN: not kiln-import-onnx %t.tfidf_weights_misfit.onnx 2>&1 | FileCheck %s --check-prefix=WEIGHTS
// WEIGHTS: error: node 'tfidf' (TfIdfVectorizer): weights has 6 entries for 7 n-grams
// RUN: not kiln-import-onnx %t.tfidf_gram_lengths.onnx 2>&1 | FileCheck %s --check-prefix=LENGTHS
// LENGTHS: error: node 'tfidf' (TfIdfVectorizer): min_gram_length 3 and max_gram_length 2 must satisfy 1 <= min <= max
// RUN: not kiln-import-onnx %t.tfidf_repeated_gram.onnx 2>&1 | FileCheck %s --check-prefix=REPEAT
// REPEAT: error: node 'tfidf' (TfIdfVectorizer): the pool's n-gram 6 repeats an earlier one
// A coordinate far past the pool would make huge tables on the host.
// RUN: not kiln-import-onnx %t.tfidf_huge_coordinate.onnx 2>&1 | FileCheck %s --check-prefix=HUGE
// HUGE: error: node 'tfidf' (TfIdfVectorizer): unsupported n-gram tables of 1073741824 coordinates x 1 slots x 3 and 6 distances (the importer builds at most 4194304 entries)
// RUN: not kiln-import-onnx %t.tfidf_strings.onnx 2>&1 | FileCheck %s --check-prefix=STRINGS
// STRINGS: error: node 'tfidf' (TfIdfVectorizer): unsupported pool_strings (string n-grams)
