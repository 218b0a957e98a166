package weaviate

// ObjectID exposes objectID to the external tests.
func ObjectID(kind, id string) string { return objectID(kind, id) }
