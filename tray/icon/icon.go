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

// TrayPNG is tray.png, the tray icon (TraySize pixels square).
//
//go:embed tray.png
var TrayPNG []byte

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
