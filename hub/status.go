package hub

import (
	"net/http"

	"github.com/cos-dev/cos/envelope"
)

// retryAfterSeconds is the Retry-After header of a 503 answer, in seconds.
const retryAfterSeconds = "1"

// StatusOf returns the HTTP status of an answer whose failure is e (nil:
// a success, 200). ifMatch says the request carried If-Match: then a
// STALE_REVISION that names the current revision is 412 Precondition
// Failed rather than 409 Conflict.
//
//	validation                 400
//	permission, module_disabled 403
//	not_found                  404
//	conflict                   409 (412: STALE_REVISION under If-Match)
//	internal                   500
//	unavailable, transient     503 (E_TIMEOUT: 504)
//
// A code of no known category is internal, 500. E_CANCELLED is the
// caller's own cancellation: the handler writes no answer at all
// (Cancelled reports it).
func StatusOf(e *envelope.Error, ifMatch bool) int {
	if e == nil {
		return http.StatusOK
	}
	switch e.Code {
	case envelope.CodeTimeout:
		return http.StatusGatewayTimeout
	case envelope.CodeStaleRevision:
		if _, current := e.Details["current_revision"]; ifMatch && current {
			return http.StatusPreconditionFailed
		}
	}
	cat := e.Category
	if !cat.Known() {
		cat = e.Code.Category()
	}
	switch cat {
	case envelope.CategoryValidation:
		return http.StatusBadRequest
	case envelope.CategoryPermission, envelope.CategoryModuleDisabled:
		return http.StatusForbidden
	case envelope.CategoryNotFound:
		return http.StatusNotFound
	case envelope.CategoryConflict:
		return http.StatusConflict
	case envelope.CategoryUnavailable, envelope.CategoryTransient:
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

// Cancelled reports whether e is the caller's own cancellation, which is
// answered with nothing.
func Cancelled(e *envelope.Error) bool { return e != nil && e.Code == envelope.CodeCancelled }
