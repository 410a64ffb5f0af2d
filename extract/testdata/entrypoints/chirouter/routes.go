// Package chirouter registers routes on chi.
package chirouter

import (
	"net/http"

	"github.com/go-chi/chi/v5"
)

func listArticles(w http.ResponseWriter, r *http.Request) {}

func getArticle(w http.ResponseWriter, r *http.Request) {}

func admin() http.Handler { return chi.NewRouter() }

// Router builds the router.
func Router() chi.Router {
	r := chi.NewRouter()
	r.Get("/", listArticles)
	r.Route("/articles", func(r chi.Router) {
		r.Get("/{id}", getArticle)
		r.Post("/", func(w http.ResponseWriter, r *http.Request) {})
	})
	r.Mount("/admin", admin())
	r.HandleFunc("/ping", listArticles)
	return r
}
