// Command switchboard is the Switchboard desktop hub for coding agents.
//
// Everything lives in package app; this file only embeds the built frontend
// and the window icon, which go:embed can reach from the module root alone.
package main

import (
	"embed"

	"github.com/switchboard-hub/switchboard/app"
)

//go:embed all:frontend/dist
var frontend embed.FS

//go:embed build/appicon.png
var icon []byte

func main() {
	app.Main(app.Assets{Frontend: frontend, Icon: icon})
}
