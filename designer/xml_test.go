package designer

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// parseXMLStd is ParseXML as it was before the hand-written scanner: the
// same checks around encoding/xml's Decoder.Token. The tests hold the
// scanner to it.
func parseXMLStd(path string, data []byte, lim Limits) (*Element, error) {
	if len(data) > lim.MaxBytes {
		return nil, &ParseError{Path: path, Reason: ReasonTooLarge, Offset: -1, Msg: fmt.Sprintf("%d bytes is over the limit of %d", len(data), lim.MaxBytes)}
	}
	base := int64(0)
	body := data
	if bytes.HasPrefix(body, bom) {
		body = body[len(bom):]
		base = int64(len(bom))
	}
	if !utf8.Valid(body) {
		return nil, &ParseError{Path: path, Reason: ReasonMalformed, Offset: -1, Msg: "not valid UTF-8"}
	}
	d := xml.NewDecoder(bytes.NewReader(body))
	d.Strict = true
	d.CharsetReader = func(label string, in io.Reader) (io.Reader, error) {
		if strings.EqualFold(label, "utf-8") {
			return in, nil
		}
		return nil, fmt.Errorf("encoding %q is not UTF-8", label)
	}
	var (
		stack []*Element
		root  *Element
		text  strings.Builder
	)
	fail := func(reason string, off int64, msg string) error {
		return &ParseError{Path: path, Reason: reason, Offset: base + off, Msg: msg}
	}
	for {
		start := d.InputOffset()
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			var se *xml.SyntaxError
			if errors.As(err, &se) {
				return nil, fail(ReasonMalformed, d.InputOffset(), fmt.Sprintf("line %d: %s", se.Line, se.Msg))
			}
			return nil, fail(ReasonMalformed, d.InputOffset(), err.Error())
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if len(stack) >= lim.MaxDepth {
				return nil, fail(ReasonTooDeep, start, fmt.Sprintf("elements nest deeper than %d", lim.MaxDepth))
			}
			if root != nil && len(stack) == 0 {
				return nil, fail(ReasonMalformed, start, "a second root element")
			}
			el := &Element{Space: t.Name.Space, Local: t.Name.Local, Attrs: t.Attr, Start: base + start}
			if len(stack) > 0 {
				parent := stack[len(stack)-1]
				if strings.TrimSpace(text.String()) != "" {
					parent.Mixed = true
				}
				parent.Children = append(parent.Children, el)
			} else {
				root = el
			}
			text.Reset()
			stack = append(stack, el)
		case xml.EndElement:
			el := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			el.End = base + d.InputOffset()
			if len(el.Children) == 0 {
				el.Text = text.String()
			} else if strings.TrimSpace(text.String()) != "" {
				el.Mixed = true
			}
			text.Reset()
		case xml.CharData:
			if len(stack) > 0 {
				text.Write(t)
			}
		case xml.Directive:
			return nil, fail(ReasonMalformed, start, "a DTD or other directive is not allowed")
		case xml.ProcInst, xml.Comment:
		}
	}
	if root == nil {
		return nil, fail(ReasonMalformed, 0, "no root element")
	}
	return root, nil
}
