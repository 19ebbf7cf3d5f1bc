package ros

// ListenAddrs returns the endpoints the context's middleware session
// accepts links on, with the actual ports (useful after listening on port
// 0, "tcp/127.0.0.1:0" in zenoh.Config.Listen), or nil when it listens on
// none or its middleware does not listen ([Memory]).
func (c *Context) ListenAddrs() []string {
	if l, ok := c.sess.(interface{ ListenAddrs() []string }); ok {
		return l.ListenAddrs()
	}
	return nil
}
