package contractdiff

import (
	"math/big"
	"testing"
)

// A bound that moves inwards narrows and one that moves outwards widens,
// in opposite directions for an upper and a lower bound; gaining a bound
// narrows and losing one widens on either side; no change is no shift.
func TestBoundShift(t *testing.T) {
	r := func(n int64) *big.Rat { return big.NewRat(n, 1) }
	cases := []struct {
		name       string
		b, a       *big.Rat
		upper      shift
		lower      shift
		upperMoved bool
		lowerMoved bool
	}{
		{"both unbounded", nil, nil, 0, 0, false, false},
		{"equal", r(5), r(5), 0, 0, false, false},
		{"bound gained", nil, r(5), narrows, narrows, true, true},
		{"bound lost", r(5), nil, widens, widens, true, true},
		{"lowered", r(5), r(4), narrows, widens, true, true},
		{"raised", r(5), r(6), widens, narrows, true, true},
	}
	for _, c := range cases {
		if s, ok := upperShift(c.b, c.a); s != c.upper || ok != c.upperMoved {
			t.Errorf("%s: upperShift = %v, %v; want %v, %v", c.name, s, ok, c.upper, c.upperMoved)
		}
		if s, ok := lowerShift(c.b, c.a); s != c.lower || ok != c.lowerMoved {
			t.Errorf("%s: lowerShift = %v, %v; want %v, %v", c.name, s, ok, c.lower, c.lowerMoved)
		}
	}
}
