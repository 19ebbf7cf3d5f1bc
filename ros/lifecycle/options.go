package lifecycle

import "context"

// Handler runs a transition: it is given the primary state the node
// started the transition from, and returns nil for success, an error
// matching [ErrFailure] to refuse the transition, or any other error for an
// error (the node then runs error processing). A panic is an error. ctx
// ends when the trigger's ctx does (for a local trigger) or when the node
// closes: a long handler should watch it.
type Handler func(ctx context.Context, from State) error

// Option configures [Manage]: the handlers of the transitions. A
// transition without a handler succeeds.
type Option func(*config)

type config struct {
	handlers map[uint8]Handler // by transition state id
}

func handlerOption(s State, h Handler) Option {
	return func(c *config) {
		if c.handlers == nil {
			c.handlers = map[uint8]Handler{}
		}
		c.handlers[s.ID] = h
	}
}

// OnConfigure sets the handler of configuring (unconfigured to inactive):
// read parameters, allocate, open devices.
func OnConfigure(h Handler) Option { return handlerOption(Configuring, h) }

// OnActivate sets the handler of activating (inactive to active): start
// the work. Lifecycle publishers publish from the start of activating.
func OnActivate(h Handler) Option { return handlerOption(Activating, h) }

// OnDeactivate sets the handler of deactivating (active to inactive): stop
// the work. Lifecycle publishers stop at the start of deactivating.
func OnDeactivate(h Handler) Option { return handlerOption(Deactivating, h) }

// OnCleanup sets the handler of cleaningup (inactive to unconfigured):
// release what configuring took.
func OnCleanup(h Handler) Option { return handlerOption(CleaningUp, h) }

// OnShutdown sets the handler of shuttingdown (any primary state but
// finalized, to finalized).
func OnShutdown(h Handler) Option { return handlerOption(ShuttingDown, h) }

// OnError sets the handler of errorprocessing, entered when another
// handler returned an error or panicked: nil takes the node to
// unconfigured, anything else to finalized. Its ctx ends only when the
// node closes.
func OnError(h Handler) Option { return handlerOption(ErrorProcessing, h) }
