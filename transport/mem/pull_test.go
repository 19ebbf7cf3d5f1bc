package mem_test

import "iter"

func iterPull[T any](seq iter.Seq[T]) (func() (T, bool), func()) { return iter.Pull(seq) }
