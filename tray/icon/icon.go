// Package icon draws Switchboard's icon: three patch cords between two
// columns of jacks on a dark rounded square. The committed PNGs
// (build/appicon.png for the window and installers, tray.png here for the
// tray) are its output; `go test ./tray/icon -update` redraws them.
package icon

import (
	_ "embed"
	"image"
	"image/color"
	"math"
)

// TrayPNG is tray.png, the tray icon (TraySize pixels square): the idle
// state. The other states are the same icon with a badge.
//
//go:embed tray.png
var TrayPNG []byte

var (
	//go:embed tray-working.png
	trayWorkingPNG []byte
	//go:embed tray-needs-you.png
	trayNeedsYouPNG []byte
	//go:embed tray-trouble.png
	trayTroublePNG []byte
	//go:embed tray-escalated.png
	trayEscalatedPNG []byte
)

// State is what the tray icon tells.
type State int

const (
	Idle     State = iota // the plain icon
	Working               // a teal badge with three dots: a turn is running
	NeedsYou              // an amber badge with "!": a permission waits
	Trouble               // greyed out, a red badge with "×": no hub
	// Escalated: a larger red badge with a white "!" on the icon in full
	// colour: a permission has waited past permissions.escalateAfter.
	Escalated
)

// States lists every State, for tests and for drawing the PNGs.
var States = []State{Idle, Working, NeedsYou, Trouble, Escalated}

// File is the committed PNG's name for s.
func (s State) File() string {
	switch s {
	case Working:
		return "tray-working.png"
	case NeedsYou:
		return "tray-needs-you.png"
	case Trouble:
		return "tray-trouble.png"
	case Escalated:
		return "tray-escalated.png"
	}
	return "tray.png"
}

// TrayStatePNG is the committed tray icon for s (TraySize pixels square).
func TrayStatePNG(s State) []byte {
	switch s {
	case Working:
		return trayWorkingPNG
	case NeedsYou:
		return trayNeedsYouPNG
	case Trouble:
		return trayTroublePNG
	case Escalated:
		return trayEscalatedPNG
	}
	return TrayPNG
}

var (
	badgeRing  = rgb{0xff, 0xff, 0xff} // a white ring: the badge stands out on dark and light panels
	badgeTeal  = rgb{0x0d, 0x94, 0x88}
	badgeAmber = rgb{0xf5, 0x9e, 0x0b}
	badgeRed   = rgb{0xdc, 0x26, 0x26}
	glyphDark  = rgb{0x1e, 0x22, 0x30}
)

// DrawState returns the tray icon for s at size x size pixels: Draw with a
// badge in the lower right corner (none for Idle); Trouble also greys the
// icon out.
func DrawState(size int, s State) *image.NRGBA {
	img := Draw(size, 0)
	if s == Idle {
		return img
	}
	px := 1 / float64(size)
	center := vec{0.74, 0.74}
	r := 0.24
	if s == Escalated {
		center, r = vec{0.7, 0.7}, 0.28
	}
	for y := 0; y < size; y++ {
		for x := 0; x < size; x++ {
			p := vec{(float64(x) + 0.5) * px, (float64(y) + 0.5) * px}
			o := img.NRGBAAt(x, y)
			c := paint{float64(o.R) * float64(o.A) / 255, float64(o.G) * float64(o.A) / 255, float64(o.B) * float64(o.A) / 255, float64(o.A)}
			if s == Trouble {
				grey := 0.3*c.r + 0.59*c.g + 0.11*c.b
				c.r, c.g, c.b = grey, grey, grey
			}
			d := p.sub(center).len()
			c.over(badgeRing, cover(d-(r+0.035), px))
			q := p.sub(center) // glyph coordinates, badge-relative
			switch s {
			case Working:
				c.over(badgeTeal, cover(d-r, px))
				for _, dx := range []float64{-0.1, 0, 0.1} {
					c.over(badgeRing, cover(q.sub(vec{dx, 0}).len()-0.04, px))
				}
			case NeedsYou:
				c.over(badgeAmber, cover(d-r, px))
				c.over(glyphDark, cover(segment(q, vec{0, -0.12}, vec{0, 0.03})-0.035, px))
				c.over(glyphDark, cover(q.sub(vec{0, 0.11}).len()-0.04, px))
			case Escalated:
				c.over(badgeRed, cover(d-r, px))
				c.over(badgeRing, cover(segment(q, vec{0, -0.14}, vec{0, 0.03})-0.04, px))
				c.over(badgeRing, cover(q.sub(vec{0, 0.13}).len()-0.045, px))
			case Trouble:
				c.over(badgeRed, cover(d-r, px))
				const k = 0.085
				c.over(badgeRing, cover(segment(q, vec{-k, -k}, vec{k, k})-0.03, px))
				c.over(badgeRing, cover(segment(q, vec{-k, k}, vec{k, -k})-0.03, px))
			}
			img.SetNRGBA(x, y, c.nrgba())
		}
	}
	return img
}

// HicolorSizes are the sizes of the app icon committed under
// build/linux/icons/<N>x<N>/switchboard.png, which the package installs in
// the freedesktop hicolor theme (build/appicon.png is the 1024 one).
var HicolorSizes = []int{16, 24, 32, 48, 64, 128, 256, 512}

// TraySize and AppSize are the sizes of the committed icons.
const (
	TraySize = 64
	AppSize  = 1024
)

type rgb struct{ r, g, b float64 }

var (
	background = rgb{0x1e, 0x22, 0x30}
	jack       = rgb{0xe5, 0xe7, 0xeb}
	hole       = rgb{0x0f, 0x11, 0x17}
	cords      = []rgb{{0x2d, 0xd4, 0xbf}, {0xfb, 0xbf, 0x24}, {0xf4, 0x72, 0xb6}}
)

// Draw returns the icon at size x size pixels. margin is the empty border
// around the rounded square, as a fraction of size (app icons keep some,
// tray icons none).
func Draw(size int, margin float64) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	px := 1 / float64(size) // one pixel in unit coordinates
	rows := []float64{0.32, 0.5, 0.68}
	const left, right = 0.3, 0.7
	plug := []int{2, 0, 1} // cord i runs from left row i to right row plug[i]
	for y := 0; y < size; y++ {
		for x := 0; x < size; x++ {
			p := vec{(float64(x) + 0.5) * px, (float64(y) + 0.5) * px}
			var c paint
			c.over(background, cover(roundedSquare(p, margin, 0.2*(1-2*margin)), px))
			for i, row := range rows {
				a, b := vec{left, row}, vec{right, rows[plug[i]]}
				c.over(cords[i], cover(segment(p, a, b)-0.024, px))
			}
			for _, row := range rows {
				for _, cx := range []float64{left, right} {
					d := p.sub(vec{cx, row}).len()
					c.over(jack, cover(d-0.065, px))
					c.over(hole, cover(d-0.032, px))
				}
			}
			img.SetNRGBA(x, y, c.nrgba())
		}
	}
	return img
}

type vec struct{ x, y float64 }

func (a vec) sub(b vec) vec       { return vec{a.x - b.x, a.y - b.y} }
func (a vec) dot(b vec) float64   { return a.x*b.x + a.y*b.y }
func (a vec) len() float64        { return math.Hypot(a.x, a.y) }
func (a vec) scale(k float64) vec { return vec{a.x * k, a.y * k} }

// Signed distances: negative inside.

func roundedSquare(p vec, margin, radius float64) float64 {
	half := 0.5 - margin
	qx := math.Abs(p.x-0.5) - half + radius
	qy := math.Abs(p.y-0.5) - half + radius
	outside := vec{math.Max(qx, 0), math.Max(qy, 0)}.len()
	return outside + math.Min(math.Max(qx, qy), 0) - radius
}

func segment(p, a, b vec) float64 {
	ab, ap := b.sub(a), p.sub(a)
	t := math.Max(0, math.Min(1, ap.dot(ab)/ab.dot(ab)))
	return ap.sub(ab.scale(t)).len()
}

// cover turns a signed distance into pixel coverage (a one-pixel ramp).
func cover(d, px float64) float64 {
	return math.Max(0, math.Min(1, 0.5-d/px))
}

// paint is a premultiplied colour in 0..255.
type paint struct{ r, g, b, a float64 }

func (c *paint) over(s rgb, alpha float64) {
	k := 1 - alpha
	c.r = s.r*alpha + c.r*k
	c.g = s.g*alpha + c.g*k
	c.b = s.b*alpha + c.b*k
	c.a = 255*alpha + c.a*k
}

func (c paint) nrgba() color.NRGBA {
	if c.a == 0 {
		return color.NRGBA{}
	}
	un := func(v float64) uint8 { return uint8(math.Round(math.Min(255, v*255/c.a))) }
	return color.NRGBA{R: un(c.r), G: un(c.g), B: un(c.b), A: uint8(math.Round(c.a))}
}
