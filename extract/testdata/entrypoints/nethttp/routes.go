// Package nethttp registers routes on net/http.
package nethttp

import "net/http"

type statusHandler struct{}

func (statusHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {}

func listUsers(w http.ResponseWriter, r *http.Request) {}

func getUser(w http.ResponseWriter, r *http.Request) {}

func health(w http.ResponseWriter, r *http.Request) {}

// Routes registers the package's routes.
func Routes() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /users", listUsers)
	mux.HandleFunc("GET /users/{id}", getUser)
	mux.Handle("/status", statusHandler{})
	mux.HandleFunc("POST /upload", func(w http.ResponseWriter, r *http.Request) {})
	http.HandleFunc("/healthz", health)
	http.Handle("/legacy", http.HandlerFunc(health))
	return mux
}
