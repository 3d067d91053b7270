package picture

import (
	"bytes"
	"strings"
	"testing"
)

func TestSniff(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		mime string // "" = not recognised
	}{
		{"png", pngImg, MIMEPNG},
		{"jpeg", jpegImg, MIMEJPEG},
		{"gif87a", []byte("GIF87a\x01\x00"), MIMEGIF},
		{"gif89a", gifImg, MIMEGIF},
		{"bmp 40", bmpImg, MIMEBMP},
		{"bmp core 12", bmpHeader(12), MIMEBMP},
		{"bmp v5 124", bmpHeader(124), MIMEBMP},
		{"ico", icoImg, MIMEICO},
		{"webp", webpImg, MIMEWebP},
		{"svg bare", svgImg, MIMESVG},
		{"svg with BOM, declaration and comment", []byte("\ufeff<?xml version=\"1.0\" encoding=\"utf-8\"?>\r\n<!-- Generator: x -->\r\n<svg width=\"1\"/>"), MIMESVG},
		{"svg with stylesheet PI", []byte("<?xml version=\"1.0\"?><?xml-stylesheet href=\"a.css\"?>\n<svg>"), MIMESVG},
		{"svg with leading white space", []byte("\n\t <svg\n/>"), MIMESVG},
		{"svg self-closing", []byte("<svg/>"), MIMESVG},

		{"empty", nil, ""},
		{"png truncated signature", pngImg[:7], ""},
		{"jpeg two bytes", []byte("\xff\xd8"), ""},
		{"gif other version", []byte("GIF90a"), ""},
		{"BM text", []byte("BM is a short text, not a bitmap file at all"), ""},
		{"bmp bad dib size", bmpHeader(41), ""},
		{"ico header only", icoImg[:6], ""},
		{"ico zero images", append([]byte{0, 0, 1, 0, 0, 0}, make([]byte, 16)...), ""},
		{"cursor is not an icon", append([]byte{0, 0, 2, 0}, icoImg[4:]...), ""},
		{"riff wave", []byte("RIFF\x1a\x00\x00\x00WAVEfmt "), ""},
		{"webp truncated", webpImg[:11], ""},
		{"svg with doctype", []byte(`<?xml version="1.0"?><!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "x.dtd"><svg/>`), ""},
		{"svg prefix of another element", []byte("<svgx/>"), ""},
		{"svg without delimiter", []byte("<svg"), ""},
		{"svg not the root", []byte("<html><svg/></html>"), ""},
		{"upper-case SVG", []byte("<SVG/>"), ""},
		{"unterminated declaration", []byte("<?xml version=\"1.0\" <svg/>"), ""},
		{"unterminated comment", []byte("<!-- <svg/>"), ""},
		{"text before svg", []byte("hello <svg/>"), ""},
		{"zip", []byte("PK\x03\x04\x14\x00"), ""},
		{"plain text", []byte("Picture.png"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mime, ok := Sniff(tt.in)
			if ok != (tt.mime != "") || mime != tt.mime {
				t.Fatalf("Sniff = %q, %v; want %q", mime, ok, tt.mime)
			}
		})
	}
}

// The SVG prolog is only searched within sniffWindow, so that a prefix of
// that length gives the same answer as the whole content (archive selection
// relies on it).
func TestSniffWindow(t *testing.T) {
	pad := func(n int) []byte {
		c := "<!--" + strings.Repeat("x", n-len("<!---->")) + "-->"
		return []byte(c)
	}
	fits := append(pad(sniffWindow-len("<svg/")), "<svg/>"...)
	if mime, ok := Sniff(fits); !ok || mime != MIMESVG {
		t.Fatalf("svg root ending at the window edge: %q %v", mime, ok)
	}
	past := append(pad(sniffWindow-len("<svg")), "<svg/>"...)
	if _, ok := Sniff(past); ok {
		t.Fatal("svg root delimiter past the window was recognised")
	}
	for _, b := range [][]byte{fits, past, append(bytes.Clone(pngImg), make([]byte, 2*sniffWindow)...)} {
		m1, ok1 := Sniff(b)
		m2, ok2 := Sniff(b[:sniffWindow])
		if m1 != m2 || ok1 != ok2 {
			t.Fatalf("prefix and whole disagree: %q %v vs %q %v", m2, ok2, m1, ok1)
		}
	}
}
