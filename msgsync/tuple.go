package msgsync

// Pair is a set of two messages, one of each input.
type Pair[A, B any] struct {
	A A
	B B
}

// Triple is a set of three messages, one of each input.
type Triple[A, B, C any] struct {
	A A
	B B
	C C
}
