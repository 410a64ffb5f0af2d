package envelope

import "fmt"

// Budget tiers (docs/envelope.md, token budget).
const (
	// DefaultBudgetChars is the agent-context budget, in token-normalised
	// characters (about 8,000 tokens).
	DefaultBudgetChars = 32_000
	// DefaultSubgraphBudgetChars is the OOM ceiling for {nodes, edges}
	// bodies, in token-normalised characters.
	DefaultSubgraphBudgetChars = 5_000_000
)

// Options tune OK. The zero value is the agent budget: 32,000 characters,
// trimming on, 5,000,000 for graph-export bodies.
type Options struct {
	// BudgetChars is the agent-context budget for the whole envelope,
	// compared as max(bytes, tokens×4). 0 means DefaultBudgetChars;
	// negative is invalid (Validate), and OK and tools.Runner.Call refuse it.
	BudgetChars int
	// NoBudget is apply_budget=false, for browser routes: the
	// token-budget ladder is skipped and envelope_unshrinkable is never
	// set. The subgraph ceiling still applies (it is an OOM net, not an
	// agent budget).
	NoBudget bool
	// SubgraphBudgetChars is the ceiling for bodies that hold both a
	// "nodes" list and an "edges" list. 0 means DefaultSubgraphBudgetChars.
	SubgraphBudgetChars int
}

// Validate returns ErrInvalidOptions when a budget is negative.
func (o Options) Validate() error {
	if o.BudgetChars < 0 {
		return fmt.Errorf("%w: BudgetChars %d < 0", ErrInvalidOptions, o.BudgetChars)
	}
	if o.SubgraphBudgetChars < 0 {
		return fmt.Errorf("%w: SubgraphBudgetChars %d < 0", ErrInvalidOptions, o.SubgraphBudgetChars)
	}
	return nil
}

func (o Options) withDefaults() Options {
	if o.BudgetChars == 0 {
		o.BudgetChars = DefaultBudgetChars
	}
	if o.SubgraphBudgetChars == 0 {
		o.SubgraphBudgetChars = DefaultSubgraphBudgetChars
	}
	return o
}
