#!/usr/bin/python3
"""Writes the TfIdfVectorizer models import_tfidf.mlir reads.

  make_tfidf_model.py PREFIX    (writes PREFIX.NAME.onnx for each model)

Like make_model.py (whose model and tensor helpers build the graph): one
TfIdfVectorizer node at opset 9, its attributes those of ONNX's backend
tests unless a case changes them.
"""

import sys

from onnx import TensorProto, helper

from make_model import model, tensor


def tfidf(x_shape, y_shape, x_type=TensorProto.INT32, **changes):
    """Unigrams 2, 3, 5, 4 and bigrams (5, 6), (7, 8), (6, 7) to Y[0..6];
    a change to None removes the attribute."""
    attrs = dict(mode="TF", min_gram_length=1, max_gram_length=2,
                 max_skip_count=5, ngram_counts=[0, 4],
                 ngram_indexes=list(range(7)),
                 pool_int64s=[2, 3, 5, 4, 5, 6, 7, 8, 6, 7])
    attrs.update(changes)
    attrs = {k: v for k, v in attrs.items() if v is not None}
    return model([helper.make_node("TfIdfVectorizer", ["x"], ["y"],
                                   name="tfidf", **attrs)],
                 [tensor("x", x_type, x_shape)],
                 [tensor("y", TensorProto.FLOAT, y_shape)], opset=9)


def tfidf_batch():
    """TFIDF over int64 rows, two n-grams sharing coordinate 1, weights."""
    return tfidf([2, 6], [2, 6], TensorProto.INT64, mode="TFIDF",
                 ngram_indexes=[0, 1, 2, 3, 4, 5, 1],
                 weights=[0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5])


def tfidf_counts_past_pool():
    """ngram_counts' bigrams start past the pool's end."""
    return tfidf([12], [7], ngram_counts=[0, 11])


def tfidf_counts_decrease():
    return tfidf([12], [7], ngram_counts=[4, 0])


def tfidf_ragged_bigrams():
    """Five items of bigrams."""
    return tfidf([12], [7], ngram_counts=[0, 5], ngram_indexes=list(range(6)))


def tfidf_indexes_misfit():
    return tfidf([12], [6], ngram_indexes=list(range(6)))


def tfidf_weights_misfit():
    return tfidf([12], [7], mode="IDF", weights=[1.0] * 6)


def tfidf_gram_lengths():
    return tfidf([12], [7], min_gram_length=3, max_gram_length=2)


def tfidf_repeated_gram():
    """The bigram (5, 6) twice."""
    return tfidf([12], [7], pool_int64s=[2, 3, 5, 4, 5, 6, 7, 8, 5, 6])


def tfidf_huge_coordinate():
    """One coordinate far past the pool: the tables would be huge."""
    return tfidf([12], [2 ** 30], ngram_indexes=[0, 1, 2, 3, 4, 5, 2 ** 30 - 1])


def tfidf_strings():
    """A pool of strings (whose tokens a graph input of strings would be,
    refused before the node)."""
    return tfidf([12], [7], pool_int64s=None,
                 pool_strings=["a", "b", "c", "d", "c", "e", "f", "g", "e",
                               "f"])


MODELS = [tfidf_batch, tfidf_counts_past_pool, tfidf_counts_decrease,
          tfidf_ragged_bigrams, tfidf_indexes_misfit, tfidf_weights_misfit,
          tfidf_gram_lengths, tfidf_repeated_gram, tfidf_huge_coordinate,
          tfidf_strings]


def main():
    """One run writes them all, as PREFIX.NAME.onnx (one Python start for
    the whole test)."""
    prefix = sys.argv[1]
    for build in MODELS:
        with open(f"{prefix}.{build.__name__}.onnx", "wb") as f:
            f.write(build().SerializeToString())


if __name__ == "__main__":
    main()
