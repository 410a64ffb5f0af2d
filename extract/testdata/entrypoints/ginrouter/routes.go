// Package ginrouter registers routes on gin.
package ginrouter

import "github.com/gin-gonic/gin"

func auth(c *gin.Context) {}

func login(c *gin.Context) {}

func listItems(c *gin.Context) {}

// Engine builds the engine.
func Engine() *gin.Engine {
	r := gin.New()
	r.POST("/login", login)
	v1 := r.Group("/v1")
	v1.GET("/items", auth, listItems)
	v1.DELETE("/items/:id", func(c *gin.Context) {})
	return r
}
