// Package muxrouter registers routes on gorilla/mux.
package muxrouter

import (
	"net/http"

	"github.com/gorilla/mux"
)

func products(w http.ResponseWriter, r *http.Request) {}

func product(w http.ResponseWriter, r *http.Request) {}

// Router builds the router.
func Router() *mux.Router {
	r := mux.NewRouter()
	r.HandleFunc("/products", products).Methods("GET", "POST")
	s := r.PathPrefix("/api").Subrouter()
	s.HandleFunc("/products/{key}", product).Methods(http.MethodGet)
	r.HandleFunc("/any", products)
	return r
}
