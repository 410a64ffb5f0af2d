// Package ws upgrades HTTP connections to WebSockets.
package ws

import (
	"net/http"

	cws "github.com/coder/websocket"
	"github.com/gorilla/websocket"
)

var upgrader = websocket.Upgrader{}

// Echo upgrades with gorilla/websocket.
func Echo(w http.ResponseWriter, r *http.Request) {
	c, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	defer c.Close()
}

// Chat accepts with coder/websocket.
func Chat(w http.ResponseWriter, r *http.Request) {
	c, err := cws.Accept(w, r, nil)
	if err != nil {
		return
	}
	defer c.CloseNow()
}
