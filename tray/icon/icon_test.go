package icon

import (
	"bytes"
	"flag"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "redraw the committed icons")

// The committed icons are what Draw draws. Compared pixel by pixel, not byte
// by byte, so a different PNG encoder does not fail the test.
func TestCommittedIcons(t *testing.T) {
	tests := []struct {
		path string
		draw func() *image.NRGBA
	}{
		{filepath.Join("..", "..", "build", "appicon.png"), func() *image.NRGBA { return Draw(AppSize, 0.06) }},
	}
	// The installed app's icons in the freedesktop hicolor theme's sizes
	// (make package installs them under /usr/share/icons/hicolor).
	for _, size := range HicolorSizes {
		dir := fmt.Sprintf("%dx%d", size, size)
		tests = append(tests, struct {
			path string
			draw func() *image.NRGBA
		}{filepath.Join("..", "..", "build", "linux", "icons", dir, "switchboard.png"), func() *image.NRGBA { return Draw(size, 0.06) }})
	}
	for _, s := range States {
		tests = append(tests, struct {
			path string
			draw func() *image.NRGBA
		}{s.File(), func() *image.NRGBA { return DrawState(TraySize, s) }})
	}
	for _, tt := range tests {
		t.Run(filepath.Base(filepath.Dir(tt.path))+"/"+filepath.Base(tt.path), func(t *testing.T) {
			want := tt.draw()
			if *update {
				if err := os.MkdirAll(filepath.Dir(tt.path), 0o755); err != nil {
					t.Fatal(err)
				}
				var buf bytes.Buffer
				if err := (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&buf, want); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(tt.path, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			data, err := os.ReadFile(tt.path)
			if err != nil {
				t.Fatalf("%v (go test ./tray/icon -update draws it)", err)
			}
			got, err := png.Decode(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			if got.Bounds() != want.Bounds() {
				t.Fatalf("%s is %v, want %v", tt.path, got.Bounds(), want.Bounds())
			}
			if x, y, ok := samePixels(got, want); !ok {
				t.Fatalf("%s differs from Draw at (%d,%d): run go test ./tray/icon -update", tt.path, x, y)
			}
		})
	}
}

func TestTrayPNGIsTheTrayIcon(t *testing.T) {
	img, err := png.Decode(bytes.NewReader(TrayPNG))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != TraySize || b.Dy() != TraySize {
		t.Fatalf("tray icon is %v, want %dx%d", b, TraySize, TraySize)
	}
}

func samePixels(a, b image.Image) (x, y int, ok bool) {
	r := a.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			r1, g1, b1, a1 := a.At(x, y).RGBA()
			r2, g2, b2, a2 := b.At(x, y).RGBA()
			if r1 != r2 || g1 != g2 || b1 != b2 || a1 != a2 {
				return x, y, false
			}
		}
	}
	return 0, 0, true
}
