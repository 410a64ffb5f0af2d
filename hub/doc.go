// Package hub serves the Hub: the web page people use to watch and steer
// what agents do with cos — the task board, the code graph, the live event
// feed, evidence bundles, health and time travel — and the JSON API under
// /api/ the page is built on.
//
// # Basics
//
// Every /api route runs one tool through tools.Runner.Call with no token
// budget (envelope.Options{NoBudget: true}): there is no second
// implementation of any tool. The body of every answer is the tool's
// envelope exactly as the runner returns it, success and failure alike,
// as application/json:
//
//	{"ok":true,"data":{…,"meta":{…}}}
//	{"ok":false,"error":{"category","code","details","message","retryable"}}
//
// The HTTP status follows the failure's category (StatusOf): validation
// 400, not_found 404, conflict 409 (a stale If-Match 412), permission and
// module_disabled 403, unavailable and transient 503 with Retry-After, a
// timeout 504, internal 500. A cancelled request gets no body.
//
// Query parameters carry a read route's arguments, named as the tool's
// arguments and converted by their declared types (a list as repeated
// parameters or comma-separated); a write route's arguments are its JSON
// body. Every read route takes `at` (a log seq or an RFC 3339 time) and
// then answers from the state at that point. /api/openapi.json describes
// every route, generated from the same route table and tool specs.
//
// # Caveats
//
// The Hub lists neither the whole graph nor the whole log at once: the
// graph routes answer a neighbourhood (a root and hops) or a search, and
// every list is paged.
package hub
