// Package embed holds foley's embedders: the implementations of
// foley.Embedder that turn text and sound into vectors in one space.
//
//   - Hash is the built-in, zero-config text embedder: feature hashing of
//     words, word pairs and character n-grams. It is deterministic, needs no
//     network and embeds only text (a record's caption, tags and UCS
//     category, see RecordText); it cannot hear.
//   - CLAP calls an Infinity-compatible embedding server
//     (github.com/michaelfeil/infinity) serving a CLAP model such as
//     laion/larger_clap_general, which embeds text and sound into one
//     space, so a text query finds clips by how they sound.
//
// FromEnv picks one: CLAP when FOLEY_CLAP_URL is set, else Hash.
//
// Vectors of different embedders, or of one embedder with another
// dimension, are never comparable: Model names the embedder exactly, and a
// library stores it with its vectors.
package embed
