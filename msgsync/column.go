package msgsync

// column holds the values of one input while a policy keeps them: in
// arrival order for the approximate policy (a queue), by slot for the exact
// one. The policies work on stamps alone and tell the column what to let go.
type column interface {
	// popFront lets go of the k oldest queued values.
	popFront(k int)
	// initSlots makes n slots.
	initSlots(n int)
	// clearSlot lets go of the value in slot.
	clearSlot(slot int)
	// reset lets go of every value.
	reset()
}

// col is the column of an input of type T.
type col[T any] struct {
	queue fifo[T]
	slots []T
}

// put stores v at the back of the queue (at < 0) or in slot at.
func (c *col[T]) put(at int, v T) {
	if at < 0 {
		c.queue.push(v)
		return
	}
	c.slots[at] = v
}

// get returns the front of the queue (at < 0) or the value in slot at.
func (c *col[T]) get(at int) T {
	if at < 0 {
		return c.queue.front()
	}
	return c.slots[at]
}

func (c *col[T]) popFront(k int)  { c.queue.popFront(k) }
func (c *col[T]) initSlots(n int) { c.slots = make([]T, n) }

func (c *col[T]) clearSlot(slot int) {
	var zero T
	c.slots[slot] = zero
}

func (c *col[T]) reset() {
	c.queue.clear()
	clear(c.slots)
}
