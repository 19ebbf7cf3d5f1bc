package lifecycle

import "errors"

var (
	// ErrFailure is what a [Handler] returns, wrapped or not, to refuse its
	// transition (rclpy's TransitionCallbackReturn.FAILURE): the node goes
	// back to the state it started from (a shutdown still ends in
	// finalized). The error of the trigger matches it too.
	//
	//	return fmt.Errorf("%w: no camera on %s", lifecycle.ErrFailure, dev)
	ErrFailure = errors.New("lifecycle: transition failed")
	// ErrHandler is matched by the error of a trigger whose handler
	// returned any other error or panicked (rclpy's
	// TransitionCallbackReturn.ERROR): the node went through error
	// processing, to unconfigured or finalized (see [OnError]). The
	// handler's error is wrapped too.
	ErrHandler = errors.New("lifecycle: transition handler error")
	// ErrInvalidTransition is matched by the error of a trigger of a
	// transition that does not start from the node's current state (or
	// while another transition runs): nothing changes.
	ErrInvalidTransition = errors.New("lifecycle: invalid transition")
	// ErrRejected is matched by the error of a [Client]'s change of state
	// that the remote node answered as unsuccessful: the transition was
	// invalid from its state, or its handler failed or erred (the service
	// does not say which; [Client.State] tells where the node is).
	ErrRejected = errors.New("lifecycle: transition rejected")
)
