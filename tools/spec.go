package tools

import (
	"context"
	"encoding/json"
	"sort"

	"github.com/cos-dev/cos/envelope"
)

// ParamType is the JSON type of one tool argument.
type ParamType int

// Argument types. A list type also accepts a string holding a JSON array of
// the right element type (agents often send `"[\"a\"]"`; docs/envelope.md,
// validation messages).
const (
	TString ParamType = iota + 1
	TInt
	TNumber
	TBool
	TStringList
	TObject
	TObjectList
	TJSON // any JSON value, passed through raw
)

func (t ParamType) String() string {
	switch t {
	case TString:
		return "a string"
	case TInt:
		return "an integer"
	case TNumber:
		return "a number"
	case TBool:
		return "a boolean"
	case TStringList:
		return "a list of strings"
	case TObject:
		return "an object"
	case TObjectList:
		return "a list of objects"
	}
	return "any JSON value"
}

// Param describes one argument: it drives the input schema, the validation
// and the error messages.
type Param struct {
	Name        string
	Type        ParamType
	Required    bool
	Description string
	// Min and Max bound TInt and TNumber values, inclusive; nil is
	// unbounded. A value out of range fails naming the range; it is never
	// clamped (docs/envelope.md, validation messages). The schema leaves
	// out a Min of 1 on an argument with a Default (a limit, a depth): a
	// count below 1 is never meant, and the error names the range.
	Min, Max *float64
	// Enum lists the legal values of a TString (or of each element of a
	// TStringList).
	Enum []string
	// SharedEnum leaves Enum out of the schema: it is a vocabulary several
	// tools share (SharedVocabularies), which the server states once
	// instead of in each of them. Validation and its error still list the
	// values.
	SharedEnum bool
	// MaxLen bounds a TString in characters or a list in elements (0: no
	// bound). The schema states the bound only below schemaMaxLength
	// (above it the bound guards against garbage, no real value meets it,
	// and the error names it) and not on a Minted string.
	MaxLen int
	// Minted marks a TString whose values the server hands out (a cursor,
	// a task id, a hash) for the caller to send back: its MaxLen stays out
	// of the schema, since no value the server made reaches it; the error
	// still names it.
	Minted bool
	// NonEmpty refuses a TString that is empty or only whitespace, or a
	// TStringList holding such a string, as E_ARGUMENT. Set it on every
	// argument that names something (a uid, a path, a name): "" can only
	// be a mistake there. Leaving an optional argument out stays legal.
	// The schema does not say it (a name is never empty; the error does).
	NonEmpty bool
	// Default is reported in the schema (but false, which leaving a
	// boolean out says already); the handler applies it.
	Default any
	// OrOne lets a TStringList take one bare string as a list of it
	// ("todo" for ["todo"]): an argument that was a string before it took
	// a list. The schema says only the list.
	OrOne bool
	// JSONTypes are the JSON types a TJSON argument takes ("object",
	// "string", "integer", …), for its schema: every property of a schema
	// has a type. The handler still validates the value itself.
	JSONTypes []string
}

// Handler is a tool body. It returns the data object of the success
// envelope and the per-tool meta keys, or an error (an *envelope.Error, an
// error of the log, or anything else, which becomes E_INTERNAL).
type Handler func(ctx context.Context, c *Call) (any, envelope.ToolMeta, error)

// Tool is one cos_* tool.
type Tool struct {
	Name string
	// Title is the short human name clients show (MCP tools/list title):
	// a few words, no trailing period.
	Title       string
	Description string
	// Data lists the keys of the tool's success data and their JSON types
	// (see Fields): the tool's outputSchema (OutputSchema). Every key an
	// answer carries besides meta must be listed.
	Data Fields
	// Module is the subsystem the tool belongs to, for the module gate:
	// graph, tasks, evidence, metrics, or "" (always on).
	Module string
	// Layer is meta.layer of its answers.
	Layer  string
	Params []Param
	// Example is a minimal valid argument object, shown in every argument
	// error of this tool.
	Example string
	// ReadOnly tools run under the tailer's read lock after a freshness
	// check; the others write to the log and manage their own reads.
	ReadOnly    bool
	Destructive bool
	Idempotent  bool
	// WritesOnlyToRefresh marks a tool that is not ReadOnly only because it
	// indexes changed files again before it answers (Call.Refresh): on a
	// server that cannot write (a point-in-time view, a read-only state
	// folder) it still runs, answers from the graph as it is and says so in
	// meta.warnings, instead of being refused as a write.
	WritesOnlyToRefresh bool
	// OwnViews marks a ReadOnly tool whose handler runs outside any view
	// and opens its own (it waits for something a view must not wait for:
	// cos_history waits for its index to reach the view's seq).
	OwnViews bool
	// HubOnly marks a tool served to the Hub's web page only (the
	// browser routes, which call with envelope.Options.NoBudget): the
	// Runner leaves it out of Tools and Has, so no MCP session lists or
	// calls it, and a call with an agent budget is E_UNKNOWN_TOOL.
	HubOnly bool
	Handler Handler
}

func f64(v float64) *float64 { return &v }

// param returns the parameter named name.
func (t *Tool) param(name string) (Param, bool) {
	for _, p := range t.Params {
		if p.Name == name {
			return p, true
		}
	}
	return Param{}, false
}

// paramNames returns the accepted argument names, sorted.
func (t *Tool) paramNames() []string {
	names := make([]string, len(t.Params))
	for i, p := range t.Params {
		names[i] = p.Name
	}
	sort.Strings(names)
	return names
}

// InputSchema returns the tool's JSON Schema: an object with a typed
// property per argument, the required ones, and additionalProperties
// false: the server refuses an unknown argument (E_ARGUMENT naming the
// accepted ones).
func (t *Tool) InputSchema() json.RawMessage {
	props := map[string]any{}
	var required []string
	for _, p := range t.Params {
		props[p.Name] = paramSchema(p)
		if p.Required {
			required = append(required, p.Name)
		}
	}
	s := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		s["required"] = required
	}
	b, _ := json.Marshal(s)
	return b
}

// schemaMaxLength is the string length, or list length, from which a
// schema leaves maxLength or maxItems out (Param.MaxLen).
const schemaMaxLength = 256

func paramSchema(p Param) map[string]any {
	s := map[string]any{}
	if p.Description != "" {
		s["description"] = p.Description
	}
	if p.Default != nil && p.Default != false { // a boolean left out is false
		s["default"] = p.Default
	}
	switch p.Type {
	case TString:
		s["type"] = "string"
		if len(p.Enum) > 0 && !p.SharedEnum {
			s["enum"] = p.Enum
		}
		if p.MaxLen > 0 && p.MaxLen < schemaMaxLength && !p.Minted {
			s["maxLength"] = p.MaxLen
		}
	case TInt, TNumber:
		s["type"] = "integer"
		if p.Type == TNumber {
			s["type"] = "number"
		}
		if p.Min != nil && !(*p.Min == 1 && p.Default != nil) { // a count with a default: ≥ 1 goes without saying
			s["minimum"] = *p.Min
		}
		if p.Max != nil {
			s["maximum"] = *p.Max
		}
	case TBool:
		s["type"] = "boolean"
	case TStringList:
		s["type"] = "array"
		item := map[string]any{"type": "string"}
		if len(p.Enum) > 0 && !p.SharedEnum {
			item["enum"] = p.Enum
		}
		s["items"] = item
		if p.MaxLen > 0 && p.MaxLen < schemaMaxLength {
			s["maxItems"] = p.MaxLen
		}
	case TObject:
		s["type"] = "object"
	case TObjectList:
		s["type"] = "array"
		s["items"] = map[string]any{"type": "object"}
		if p.MaxLen > 0 && p.MaxLen < schemaMaxLength {
			s["maxItems"] = p.MaxLen
		}
	case TJSON:
		s["type"] = jsonTypes(p.JSONTypes)
	}
	return s
}
