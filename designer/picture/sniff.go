package picture

import (
	"bytes"
	"encoding/binary"
)

// MIME types of the supported formats. ICO is reported as image/x-icon
// rather than the registered image/vnd.microsoft.icon because that is what
// browsers and net/http.DetectContentType use, and the preview is rendered
// by a browser engine.
const (
	MIMEPNG  = "image/png"
	MIMEJPEG = "image/jpeg"
	MIMEGIF  = "image/gif"
	MIMEBMP  = "image/bmp"
	MIMEICO  = "image/x-icon"
	MIMEWebP = "image/webp"
	MIMESVG  = "image/svg+xml"
)

// sniffWindow is how far into the content Sniff looks. Raster formats need
// a few dozen bytes; the rest is room for an SVG prolog (XML declaration,
// comments). Fixing the window makes Sniff give the same answer for a
// prefix of at least this length as for the whole content, which lets
// archive selection sniff entries without decompressing them fully.
const sniffWindow = 16 << 10

// Sniff returns the MIME type of an image from its leading bytes. Only the
// formats a preview can render are recognised; everything else is
// reported as not ok rather than guessed.
func Sniff(b []byte) (mime string, ok bool) {
	if len(b) > sniffWindow {
		b = b[:sniffWindow]
	}
	switch {
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		return MIMEPNG, true
	case bytes.HasPrefix(b, []byte("\xff\xd8\xff")):
		return MIMEJPEG, true
	case bytes.HasPrefix(b, []byte("GIF87a")), bytes.HasPrefix(b, []byte("GIF89a")):
		return MIMEGIF, true
	case isBMP(b):
		return MIMEBMP, true
	case isICO(b):
		return MIMEICO, true
	case len(b) >= 12 && bytes.HasPrefix(b, []byte("RIFF")) && string(b[8:12]) == "WEBP":
		return MIMEWebP, true
	case isSVG(b):
		return MIMESVG, true
	}
	return "", false
}

// isBMP checks the DIB header size as well as the "BM" tag: two letters
// alone match too much plain text.
func isBMP(b []byte) bool {
	if len(b) < 18 || b[0] != 'B' || b[1] != 'M' {
		return false
	}
	switch binary.LittleEndian.Uint32(b[14:18]) {
	case 12, 16, 40, 52, 56, 64, 108, 124:
		return true
	}
	return false
}

// isICO requires the icon type, at least one image and a zero reserved
// byte in the first directory entry; the four-byte magic alone also
// starts many unrelated binary files.
func isICO(b []byte) bool {
	if len(b) < 22 || !bytes.HasPrefix(b, []byte{0, 0, 1, 0}) {
		return false
	}
	return binary.LittleEndian.Uint16(b[4:6]) > 0 && b[9] == 0
}

// isSVG accepts an <svg> root element after an optional byte-order mark,
// XML declaration, processing instructions, comments and white space. A
// DOCTYPE is not accepted: modern SVG does not need one and the preview
// must not hand a DTD to the renderer.
func isSVG(b []byte) bool {
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	for {
		b = bytes.TrimLeft(b, " \t\r\n")
		switch {
		case bytes.HasPrefix(b, []byte("<?")):
			i := bytes.Index(b, []byte("?>"))
			if i < 0 {
				return false
			}
			b = b[i+2:]
		case bytes.HasPrefix(b, []byte("<!--")):
			i := bytes.Index(b[4:], []byte("-->"))
			if i < 0 {
				return false
			}
			b = b[4+i+3:]
		case bytes.HasPrefix(b, []byte("<svg")) && len(b) > 4:
			switch b[4] {
			case ' ', '\t', '\r', '\n', '>', '/':
				return true
			}
			return false
		default:
			return false
		}
	}
}

// isZip recognises a local file header or the end record of an empty
// archive. Self-extracting archives and other prefixed layouts are not
// pictures Designer writes, so they are left to Sniff, which rejects them.
func isZip(b []byte) bool {
	return bytes.HasPrefix(b, []byte("PK\x03\x04")) || bytes.HasPrefix(b, []byte("PK\x05\x06"))
}
