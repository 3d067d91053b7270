//go:build !aicontrol_disabled

package bridge

import (
	"encoding/json"
	"strings"

	"github.com/contractkit/contractkit/generated/aicontrol"
)

// ownActParams returns p with its own copy of every string: p was decoded
// from a tree that borrows the request line, whose memory the connection
// reuses for the next line, while a queued command lives until the game
// drains it. The raw values of Extra are already fresh (the strict decoder
// re-encodes them), their names are not.
func ownActParams(p aicontrol.ActParams) aicontrol.ActParams {
	p.Type = strings.Clone(p.Type)
	p.TargetID = ownIdentifier(p.TargetID)
	p.ItemID = ownIdentifier(p.ItemID)
	p.AuxID = ownIdentifier(p.AuxID)
	if p.StringArg != nil {
		s := strings.Clone(*p.StringArg)
		p.StringArg = &s
	}
	if p.Extra != nil {
		extra := make(map[string]json.RawMessage, len(p.Extra))
		for k, v := range p.Extra {
			extra[strings.Clone(k)] = v
		}
		p.Extra = extra
	}
	return p
}

func ownIdentifier(id *aicontrol.ProjectIdentifier) *aicontrol.ProjectIdentifier {
	if id == nil || id.String == nil {
		return id
	}
	s := strings.Clone(*id.String)
	return &aicontrol.ProjectIdentifier{String: &s}
}
