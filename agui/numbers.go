package agui

import (
	"math"
	"strconv"
	"strings"

	contract "github.com/contractkit/contractkit/generated/agui"
)

// decimal is the exact value of a JSON number literal: digits × 10^exp,
// with no leading or trailing zeros in digits ("" for zero).
type decimal struct {
	neg    bool
	digits string
	exp    int64
}

// maxExponent caps exponents while parsing: any literal whose exponent is
// larger in magnitude is far outside every range the rules care about, and
// capping keeps the arithmetic in int64.
const maxExponent = 1 << 40

// parseDecimal reads a literal the strict reader already accepted as a
// JSON number.
func parseDecimal(lit string) decimal {
	var d decimal
	if strings.HasPrefix(lit, "-") {
		d.neg = true
		lit = lit[1:]
	}
	mant, expPart, _ := strings.Cut(strings.ToLower(lit), "e")
	intPart, frac, _ := strings.Cut(mant, ".")
	var exp int64
	if expPart != "" {
		sign := int64(1)
		switch expPart[0] {
		case '-':
			sign, expPart = -1, expPart[1:]
		case '+':
			expPart = expPart[1:]
		}
		for _, c := range expPart {
			exp = exp*10 + int64(c-'0')
			if exp > maxExponent {
				exp = maxExponent
				break
			}
		}
		exp *= sign
	}
	digits := strings.TrimLeft(intPart+frac, "0")
	exp -= int64(len(frac))
	trimmed := strings.TrimRight(digits, "0")
	exp += int64(len(digits) - len(trimmed))
	d.digits, d.exp = trimmed, exp
	if d.digits == "" {
		d.exp = 0
	}
	return d
}

// order is the number of digits before the decimal point of |d| (it may be
// zero or negative): 10^(order-1) <= |d| < 10^order.
func (d decimal) order() int64 { return int64(len(d.digits)) + d.exp }

// equal compares exact values; zero equals zero whatever its sign.
func (d decimal) equal(o decimal) bool {
	if d.digits == "" || o.digits == "" {
		return d.digits == o.digits
	}
	return d.neg == o.neg && d.digits == o.digits && d.exp == o.exp
}

// Orders of magnitude beyond which a literal cannot be a finite double, and
// beyond which an integer cannot be a safe one (2^53−1 has 16 digits).
const (
	doubleOrder  = 309
	integerOrder = 16
)

// checkNumber applies the stand's number rules to a literal. It returns the
// rule a literal breaks and why, or "" when the literal is accepted.
//
// The rules are checked on the literal kept by the strict reader, never on
// a float read from it, so that no reading can hide what the file says.
func checkNumber(lit string) (rule, why string) {
	if short, negZero := shortInteger(lit); short {
		if negZero {
			return contract.RuleReaderNegativeZero, "negative zero " + lit + " is not accepted"
		}
		return "", ""
	}
	d := parseDecimal(lit)
	switch {
	case d.digits == "" && d.neg:
		return contract.RuleReaderNegativeZero, "negative zero " + lit + " is not accepted"
	case d.digits == "":
		return "", ""
	case d.order() > doubleOrder:
		return contract.RuleReaderNumberOverflow, lit + " is too large for a double and would read as infinity"
	case d.exp >= 0:
		return checkInteger(d, lit)
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil || math.IsInf(f, 0) {
		return contract.RuleReaderNumberOverflow, lit + " is too large for a double and would read as infinity"
	}
	if f == 0 {
		return contract.RuleReaderNumberOverflow, lit + " is so small that it would read as zero"
	}
	// Writing back in shortest form is what a JavaScript reader does too.
	back := strconv.FormatFloat(f, 'g', -1, 64)
	if !parseDecimal(back).equal(d) {
		return contract.RuleReaderFractionRoundTrip, lit + " would read back as " + back + ": its decimal value does not survive a double"
	}
	return "", ""
}

// shortInteger reports whether lit is an integer of at most 15 digits
// without fraction or exponent, the common case: such an integer is always
// safe, and the only one the rules refuse is -0.
func shortInteger[T ~string | ~[]byte](lit T) (short, negZero bool) {
	digits := lit
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 15 {
		return false, false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return false, false
		}
	}
	return true, len(digits) < len(lit) && len(digits) == 1 && digits[0] == '0'
}

// checkInteger checks an integral value against the safe integer range.
func checkInteger(d decimal, lit string) (rule, why string) {
	out := func() (string, string) {
		return contract.RuleReaderIntegerRange, "integer " + lit + " is outside " + strconv.FormatInt(contract.MinInteger, 10) + "…" + strconv.FormatInt(contract.MaxInteger, 10)
	}
	if d.order() > integerOrder {
		return out()
	}
	var v int64
	for _, c := range d.digits {
		v = v*10 + int64(c-'0')
	}
	for i := int64(0); i < d.exp; i++ {
		v *= 10
	}
	if d.neg {
		v = -v
	}
	if v > contract.MaxInteger || v < contract.MinInteger {
		return out()
	}
	return "", ""
}
