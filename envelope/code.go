package envelope

// Code is the operational error code carried in "error.code"
// (docs/errors.md, codes). Codes are not
// interchangeable: an agent keys its recovery on them, so a code, once
// published, is never renamed or removed (testdata/codes.frozen guards this).
type Code string

// The operational codes. Each has exactly one entry in catalogue.
const (
	// CodeArgument: invalid or missing input, an unknown key, a selector
	// conflict, an invalid limit. Correct the request.
	CodeArgument Code = "E_ARGUMENT"
	// CodePath: the path lies outside an allowed folder.
	CodePath Code = "E_PATH"
	// CodeReadOnly: the store or scope is read-only; reads may continue.
	CodeReadOnly Code = "E_READ_ONLY"
	// CodeStaleRead: the entity changed while it was read; read again.
	CodeStaleRead Code = "STALE_READ"
	// CodeStaleRevision: the expected revision or hash no longer matches
	// (or a create target already exists); reread and rebase.
	CodeStaleRevision Code = "STALE_REVISION"
	// CodeStaleCursor: the cursor belongs to another revision; get a fresh one.
	CodeStaleCursor Code = "STALE_CURSOR"
	// CodeCursor: the cursor is malformed.
	CodeCursor Code = "E_CURSOR"
	// CodeRequestReuse: the request id is bound to a different intent.
	CodeRequestReuse Code = "E_REQUEST_REUSE"
	// CodeRequestID: a nonempty, well-formed request id is required.
	CodeRequestID Code = "E_REQUEST_ID"
	// CodeCASRequired: a write needs an explicit base revision.
	CodeCASRequired Code = "E_CAS_REQUIRED"
	// CodeCommitUnknown: the write may or may not be durable; retry only the
	// identical request with the same request id.
	CodeCommitUnknown Code = "COMMIT_UNKNOWN"
	// CodeStorage: the storage layer failed; inspect state before retrying.
	CodeStorage Code = "E_STORAGE"
	// CodeIntegrity: the log's sequence or hash chain audit failed.
	CodeIntegrity Code = "E_INTEGRITY"
	// CodeTimeout: the request ran out of time.
	CodeTimeout Code = "E_TIMEOUT"
	// CodeInternal: an unexpected failure; details are in the server log.
	CodeInternal Code = "E_INTERNAL"
	// CodeUnknownTool: no tool has that name.
	CodeUnknownTool Code = "E_UNKNOWN_TOOL"
	// CodeContextBudget: the answer cannot be made to fit the context budget;
	// narrow the request.
	CodeContextBudget Code = "E_CONTEXT_BUDGET"
	// CodeNotFound: the entity does not exist.
	CodeNotFound Code = "E_NOT_FOUND"
	// CodeAmbiguous: a name resolved to several entities; pick one.
	CodeAmbiguous Code = "E_AMBIGUOUS"
	// CodeUnavailable: an optional component is missing or not running.
	CodeUnavailable Code = "E_UNAVAILABLE"
	// CodeModuleDisabled: the tool's module is disabled in this project.
	CodeModuleDisabled Code = "E_MODULE_DISABLED"
	// CodeClaimed: the task is claimed by another assignee; only the holder
	// may claim it, release it or change its status (an update may say
	// force). Not retryable unchanged.
	CodeClaimed Code = "E_CLAIMED"
	// CodeCancelled: the caller cancelled the request before it finished
	// (over MCP, notifications/cancelled: that request gets no answer at
	// all). What it committed before stays committed; run it again to
	// finish.
	CodeCancelled Code = "E_CANCELLED"
	// CodeUnauthorized: an HTTP request (the Hub's /api) carries no token
	// — neither "Authorization: Bearer" nor the login cookie — or a wrong
	// one, on a server that requires one. Send the token, or log in.
	CodeUnauthorized Code = "E_UNAUTHORIZED"
	// CodeOrigin: a browser request comes from an origin the server does
	// not allow (not its own, not one given with --allow-origin), or is a
	// cross-site write. Nothing was done.
	CodeOrigin Code = "E_ORIGIN"
)

// CodeSpec is one catalogue entry: a code and the category it belongs to.
type CodeSpec struct {
	Code     Code
	Category Category
}

// catalogue is the one list of codes. Order is the order of publication;
// append, never rename or remove.
var catalogue = []CodeSpec{
	{CodeArgument, CategoryValidation},
	{CodePath, CategoryValidation},
	{CodeReadOnly, CategoryPermission},
	{CodeStaleRead, CategoryTransient}, // reading again at current state succeeds
	{CodeStaleRevision, CategoryConflict},
	{CodeStaleCursor, CategoryConflict},
	{CodeCursor, CategoryValidation},
	{CodeRequestReuse, CategoryConflict},
	{CodeRequestID, CategoryValidation},
	{CodeCASRequired, CategoryValidation},
	{CodeCommitUnknown, CategoryTransient}, // retry the identical request id
	{CodeStorage, CategoryInternal},
	{CodeIntegrity, CategoryInternal},
	{CodeTimeout, CategoryTransient},
	{CodeInternal, CategoryInternal},
	{CodeUnknownTool, CategoryValidation},
	{CodeContextBudget, CategoryValidation},
	{CodeNotFound, CategoryNotFound},
	{CodeAmbiguous, CategoryValidation},
	{CodeUnavailable, CategoryUnavailable},
	{CodeModuleDisabled, CategoryModuleDisabled},
	{CodeClaimed, CategoryConflict},
	{CodeCancelled, CategoryTransient},
	{CodeUnauthorized, CategoryPermission},
	{CodeOrigin, CategoryPermission},
}

var categoryOf = func() map[Code]Category {
	m := make(map[Code]Category, len(catalogue))
	for _, s := range catalogue {
		m[s.Code] = s.Category
	}
	return m
}()

// Catalogue returns a copy of every known code with its category, in
// publication order.
func Catalogue() []CodeSpec {
	return append([]CodeSpec(nil), catalogue...)
}

// Category returns the code's category, or CategoryInternal for a code that
// is not in the catalogue.
func (c Code) Category() Category {
	if cat, ok := categoryOf[c]; ok {
		return cat
	}
	return CategoryInternal
}

// known reports whether c is in the catalogue.
func (c Code) known() bool {
	_, ok := categoryOf[c]
	return ok
}
