package msgsync

// fifo is a growable ring buffer: a queue that pops at the front and pushes
// at the back (and, for the cache, inserts anywhere) without reallocating in
// the steady state. Popped slots are zeroed, so that the queue keeps no
// reference to a value it let go of.
type fifo[T any] struct {
	buf  []T
	head int // index in buf of element 0
	n    int
}

func (q *fifo[T]) len() int { return q.n }

// at returns element i (0 is the front).
func (q *fifo[T]) at(i int) T { return q.buf[q.idx(i)] }

// ptr returns the address of element i, valid until the next push or insert.
func (q *fifo[T]) ptr(i int) *T { return &q.buf[q.idx(i)] }

func (q *fifo[T]) idx(i int) int {
	j := q.head + i
	if j >= len(q.buf) {
		j -= len(q.buf)
	}
	return j
}

func (q *fifo[T]) front() T { return q.buf[q.head] }

func (q *fifo[T]) back() T { return q.at(q.n - 1) }

func (q *fifo[T]) grow() {
	size := 2 * len(q.buf)
	if size < 4 {
		size = 4
	}
	buf := make([]T, size)
	for i := range q.n {
		buf[i] = q.at(i)
	}
	q.buf, q.head = buf, 0
}

func (q *fifo[T]) push(v T) {
	if q.n == len(q.buf) {
		q.grow()
	}
	q.buf[q.idx(q.n)] = v
	q.n++
}

// insert puts v at position i (0 <= i <= len), shifting the elements from i
// on towards the back.
func (q *fifo[T]) insert(i int, v T) {
	if q.n == len(q.buf) {
		q.grow()
	}
	for j := q.n; j > i; j-- {
		q.buf[q.idx(j)] = q.buf[q.idx(j-1)]
	}
	q.buf[q.idx(i)] = v
	q.n++
}

// popFront removes the k oldest elements (k <= len).
func (q *fifo[T]) popFront(k int) {
	var zero T
	for range k {
		q.buf[q.head] = zero
		q.head++
		if q.head == len(q.buf) {
			q.head = 0
		}
		q.n--
	}
}

// clear removes every element.
func (q *fifo[T]) clear() { q.popFront(q.n) }
