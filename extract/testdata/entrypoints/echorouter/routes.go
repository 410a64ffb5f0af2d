// Package echorouter registers routes on echo.
package echorouter

import "github.com/labstack/echo/v4"

type handlers struct{}

func (handlers) show(c echo.Context) error { return nil }

func create(c echo.Context) error { return nil }

// Server builds the server.
func Server() *echo.Echo {
	e := echo.New()
	h := handlers{}
	e.GET("/users/:id", h.show)
	g := e.Group("/api")
	g.POST("/users", create)
	return e
}
