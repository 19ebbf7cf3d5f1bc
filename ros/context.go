package ros

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/afor-go/afor/ros/internal/names"
	"github.com/afor-go/afor/ros/internal/rmw"
)

// Context is one middleware session shared by nodes: a ROS 2 context. Open
// one to run several nodes on one connection; [NewNode] opens a private one
// for its node.
type Context struct {
	sess     rmw.Session
	mw       Middleware
	domainID int
	enclave  string
	rules    []names.Rule     // from WithArgs: for every node
	params   []names.Override // parameter overrides from WithArgs, in order
	logger   *slog.Logger
	types    typeLibrary // interface definitions for ~/get_type_description

	mu     sync.Mutex
	nodes  []*Node
	closed bool
}

// Open opens a context with the given context options ([WithDomainID],
// [WithMiddleware], [WithEnclave], [WithArgs], [WithLogger]).
func Open(ctx context.Context, opts ...Option) (*Context, error) {
	return open(ctx, collect(opts))
}

func open(ctx context.Context, o options) (*Context, error) {
	c := &Context{logger: o.logger, enclave: "/"}
	c.types.extra = o.interfaces
	if c.logger == nil {
		c.logger = slog.Default()
	}
	if o.domainID != nil {
		c.domainID = *o.domainID
	} else if env := os.Getenv("ROS_DOMAIN_ID"); strings.TrimSpace(env) != "" {
		id, err := strconv.Atoi(strings.TrimSpace(env))
		if err != nil {
			return nil, fmt.Errorf("%w: ROS_DOMAIN_ID=%q is not a number", ErrInvalidDomainID, env)
		}
		c.domainID = id
	}
	if c.domainID < 0 || c.domainID > MaxDomainID {
		return nil, fmt.Errorf("%w: %d is not in 0..%d", ErrInvalidDomainID, c.domainID, MaxDomainID)
	}
	if o.enclave != "" {
		c.enclave = o.enclave
	}
	if o.argsSet {
		a, err := names.ParseArgs(o.args)
		if err != nil {
			return nil, fmt.Errorf("ros: %w", err)
		}
		c.rules = a.Rules
		params, err := loadParamArgs(a.Params)
		if err != nil {
			return nil, err
		}
		c.params = params
		if a.Enclave != "" {
			c.enclave = a.Enclave
		}
	}
	if err := names.ValidateNamespace(c.enclave); err != nil {
		return nil, fmt.Errorf("ros: enclave: %w", err)
	}
	if o.middleware != nil && o.middleware.open != nil {
		c.mw = *o.middleware
	} else {
		mw, err := middlewareFromEnv(os.Getenv("RMW_IMPLEMENTATION"))
		if err != nil {
			return nil, err
		}
		c.mw = mw
	}
	sess, err := c.mw.open(ctx, openConfig{domainID: c.domainID, logger: c.logger})
	if err != nil {
		return nil, fmt.Errorf("ros: open %s: %w", c.mw, err)
	}
	c.sess = sess
	return c, nil
}

// DomainID returns the context's ROS domain ID.
func (c *Context) DomainID() int { return c.domainID }

// Middleware returns the context's middleware.
func (c *Context) Middleware() Middleware { return c.mw }

// NewNode creates a node on the context, with node options
// ([WithNamespace], [WithArgs] for this node's rules, [WithLogger]).
// Context options are an error here.
func (c *Context) NewNode(name string, opts ...Option) (*Node, error) {
	o := collect(opts)
	if len(o.contextOnly) > 0 {
		return nil, fmt.Errorf("ros: %s is a context option: give it to ros.Open", strings.Join(o.contextOnly, ", "))
	}
	return c.newNode(name, o, false)
}

// Close closes every node of the context and its middleware session.
// Close is idempotent.
func (c *Context) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	nodes := slices.Clone(c.nodes)
	c.mu.Unlock()
	var errs []error
	for _, n := range nodes {
		errs = append(errs, n.closeEntities())
	}
	errs = append(errs, c.sess.Close())
	return errors.Join(errs...)
}

func (c *Context) removeNode(n *Node) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if i := slices.Index(c.nodes, n); i >= 0 {
		c.nodes = slices.Delete(c.nodes, i, i+1)
	}
}
