package hub

// Files a running hub keeps in its data dir for its clients (API.md
// "Finding the hub"). The data dir is 0700 and both files 0600.
const (
	// DiscoveryFile holds Discovery as JSON while a hub runs; the hub
	// removes it on a clean exit.
	DiscoveryFile = "hub.json"
	// TokenFile holds the API token: 64 hex digits and a newline.
	TokenFile = "token"
)

// Discovery is <data-dir>/hub.json: how the tray, the editor bridge and
// editors find a running hub. It never holds the token.
type Discovery struct {
	URL     string `json:"url"`
	PID     int    `json:"pid"`
	Version string `json:"version"`
	// Window (extension) is true when the hub runs inside the desktop app:
	// launching the app again raises its window. False beside `serve`,
	// where the UI is the browser's.
	Window bool `json:"window,omitempty"`
	// Socket (extension) is the unix socket the hub serves on instead of
	// TCP (`serve --socket`, a host's hub); URL is then
	// "http://localhost", the name its requests carry.
	Socket string `json:"socket,omitempty"`
}
