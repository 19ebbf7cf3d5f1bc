package tf2

import "sort"

// sample is one transform of a frame relative to its parent at a time.
type sample struct {
	stamp  int64  // nanoseconds of ROS time
	parent uint32 // frame number; 0 is no frame
	x      xform
}

// cache holds the samples of one frame, sorted by stamp (oldest first) in
// s[head:]: new samples usually come last and old ones leave from the
// front, so both are O(1) but for the rare sample out of order (a binary
// search and a copy). A static cache holds one sample, valid at any time.
type cache struct {
	static bool
	s      []sample
	head   int
}

func (c *cache) items() []sample { return c.s[c.head:] }

func (c *cache) empty() bool { return c.head == len(c.s) }

func (c *cache) latest() *sample { return &c.s[len(c.s)-1] }

func (c *cache) oldest() *sample { return &c.s[c.head] }

// latestStampAndParent is tf2's getLatestTimeAndParent: a static frame has
// no time (0).
func (c *cache) latestStampAndParent() (int64, uint32) {
	if c.empty() {
		return 0, 0
	}
	l := c.latest()
	if c.static {
		return 0, l.parent
	}
	return l.stamp, l.parent
}

// insert adds v, keeping at most maxAge of history behind the newest
// sample, and at most maxN samples (the oldest go first). It returns false
// for a sample older than that (tf2's TF_OLD_DATA). A sample at the stamp
// of one already there replaces it.
func (c *cache) insert(v sample, maxAge int64, maxN int) bool {
	if c.static {
		c.s = append(c.s[:0], v)
		c.head = 0
		return true
	}
	if !c.empty() {
		newest := c.latest().stamp
		if v.stamp < newest-maxAge {
			c.prune(newest - maxAge)
			return false
		}
	}
	items := c.items()
	switch n := len(items); {
	case n == 0 || v.stamp > items[n-1].stamp:
		c.append(v)
	default:
		i := sort.Search(n, func(i int) bool { return items[i].stamp >= v.stamp })
		if items[i].stamp == v.stamp {
			items[i] = v
		} else {
			c.append(sample{})
			items = c.items()
			copy(items[i+1:], items[i:])
			items[i] = v
		}
	}
	c.prune(c.latest().stamp - maxAge)
	if n := len(c.s) - c.head; n > maxN {
		c.head += n - maxN
	}
	return true
}

// append adds v at the end, moving the live samples to the front of the
// slice first when the dead ones before them are the larger part.
func (c *cache) append(v sample) {
	if len(c.s) == cap(c.s) && c.head > 0 && c.head >= len(c.s)/2 {
		n := copy(c.s, c.s[c.head:])
		c.s = c.s[:n]
		c.head = 0
	}
	c.s = append(c.s, v)
}

// prune drops the samples older than oldest (tf2 keeps a sample exactly
// maxAge old).
func (c *cache) prune(oldest int64) {
	for c.head < len(c.s)-1 && c.s[c.head].stamp < oldest {
		c.head++
	}
}

func (c *cache) clear() {
	c.s = c.s[:0]
	c.head = 0
}

// find is tf2's findClosest: the samples around stamp (t == 0: the
// latest). It returns one sample (exact, latest or static), two (older,
// newer) to interpolate between, or an error of kind ErrNoData,
// ErrExtrapolationFuture or ErrExtrapolationPast.
func (c *cache) find(stamp int64) (one, two *sample, err error) {
	if c.empty() {
		return nil, nil, errorf(ErrNoData, "lookup would require extrapolation at time %s, but the frame has no data", secs(stamp))
	}
	if stamp == 0 || c.static {
		return c.latest(), nil, nil
	}
	items := c.items()
	if len(items) == 1 {
		if items[0].stamp == stamp {
			return &items[0], nil, nil
		}
		return nil, nil, errorf(ErrNoData, "lookup would require extrapolation at time %s, but only time %s is in the buffer", secs(stamp), secs(items[0].stamp))
	}
	newest, oldest := &items[len(items)-1], &items[0]
	switch {
	case stamp == newest.stamp:
		return newest, nil, nil
	case stamp == oldest.stamp:
		return oldest, nil, nil
	case stamp > newest.stamp:
		return nil, nil, errorf(ErrExtrapolationFuture, "lookup would require extrapolation into the future: requested time %s but the latest data is at time %s", secs(stamp), secs(newest.stamp))
	case stamp < oldest.stamp:
		return nil, nil, errorf(ErrExtrapolationPast, "lookup would require extrapolation into the past: requested time %s but the earliest data is at time %s", secs(stamp), secs(oldest.stamp))
	}
	// Newest samples are the likeliest asked for: try the last interval,
	// then search. i is the first sample newer than stamp.
	i := len(items) - 1
	if items[i-1].stamp > stamp {
		i = sort.Search(len(items), func(j int) bool { return items[j].stamp > stamp })
	}
	if items[i-1].stamp == stamp {
		return &items[i-1], nil, nil
	}
	return &items[i-1], &items[i], nil
}

// parentAt is the parent of the frame at stamp (tf2's getParent: the older
// sample's parent, no interpolation).
func (c *cache) parentAt(stamp int64) (uint32, error) {
	one, _, err := c.find(stamp)
	if err != nil {
		return 0, err
	}
	return one.parent, nil
}

// at is the frame's transform at stamp (tf2's getData): interpolated
// between the two samples around stamp when they have the same parent,
// else the older one.
func (c *cache) at(stamp int64) (uint32, xform, error) {
	one, two, err := c.find(stamp)
	if err != nil {
		return 0, xform{}, err
	}
	if two == nil || one.parent != two.parent {
		return one.parent, one.x, nil
	}
	r := float64(stamp-one.stamp) / float64(two.stamp-one.stamp)
	return one.parent, xform{t: lerp(one.x.t, two.x.t, r), q: slerp(one.x.q, two.x.q, r)}, nil
}
