package envelope

// Category is the coarse class of a failure (docs/errors.md, categories).
// It tells an agent which recovery to pick: retry, correct the request,
// escalate, or surface the error to the user.
type Category string

// The categories (docs/errors.md, categories).
const (
	// CategoryTransient: timeouts, connection drops, a flaky downstream.
	CategoryTransient Category = "transient"
	// CategoryValidation: bad input (wrong type, out of range, missing field).
	CategoryValidation Category = "validation"
	// CategoryPermission: the caller lacks rights (read-only store, locked resource).
	CategoryPermission Category = "permission"
	// CategoryNotFound: the requested entity does not exist.
	CategoryNotFound Category = "not_found"
	// CategoryUnavailable: an optional dependency is missing; install and retry.
	CategoryUnavailable Category = "unavailable"
	// CategoryInternal: anything else, an unexpected failure.
	CategoryInternal Category = "internal"
	// CategoryModuleDisabled: the tool's module is disabled in this project.
	CategoryModuleDisabled Category = "module_disabled"
	// CategoryConflict: the request raced another writer (stale revision,
	// request-id reuse); it is not retryable unchanged.
	CategoryConflict Category = "conflict"
)

// Categories lists every category in a stable order.
var Categories = []Category{
	CategoryTransient,
	CategoryValidation,
	CategoryPermission,
	CategoryNotFound,
	CategoryUnavailable,
	CategoryInternal,
	CategoryModuleDisabled,
	CategoryConflict,
}

// Retryable reports the category's default for the envelope's "retryable"
// field (docs/errors.md): true for transient and unavailable, false for the
// rest. An unknown category is not retryable.
func (c Category) Retryable() bool {
	return c == CategoryTransient || c == CategoryUnavailable
}

// Known reports whether c is one of Categories.
func (c Category) Known() bool {
	for _, k := range Categories {
		if c == k {
			return true
		}
	}
	return false
}
