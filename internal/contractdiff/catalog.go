package contractdiff

// Rule ids. They are part of the public interface: findings, dispositions
// and the reference pages name them, so an id never changes meaning and is
// never reused.
const (
	RuleDomainRemoved       = "domain-removed"
	RuleMethodRemoved       = "method-removed"
	RuleNotificationRemoved = "notification-removed"
	RuleEventRemoved        = "event-removed"
	RuleErrorRemoved        = "error-removed"
	RuleErrorKindRemoved    = "error-kind-removed"
	RuleCapabilityRemoved   = "capability-removed"
	RuleRuleRemoved         = "rule-removed"
	RuleTypeRemoved         = "type-removed"
	RuleConstantRemoved     = "constant-removed"
	RuleIDRenamed           = "id-renamed"
	RuleRenamed             = "renamed"
	RuleFieldRemoved        = "field-removed"
	// RuleRequestMemberIgnored is a tolerated removal that changes what
	// an answer means: see its catalog entry.
	RuleRequestMemberIgnored = "request-member-ignored"

	RuleRequiredFieldAdded    = "required-field-added"
	RuleClosedTypeFieldAdded  = "closed-type-field-added"
	RuleFieldNowRequired      = "field-now-required"
	RuleFieldNowOptional      = "field-now-optional"
	RuleNullableRemoved       = "nullable-removed"
	RuleNullableAdded         = "nullable-added"
	RuleTypeChanged           = "type-changed"
	RuleEnumValueRemoved      = "enum-value-removed"
	RuleEnumValueAdded        = "enum-value-added"
	RuleVariantRemoved        = "variant-removed"
	RuleVariantAdded          = "variant-added"
	RuleOpennessChanged       = "openness-changed"
	RuleMaxLengthLowered      = "max-length-lowered"
	RuleMinLengthRaised       = "min-length-raised"
	RulePatternChanged        = "pattern-changed"
	RuleMaximumLowered        = "maximum-lowered"
	RuleMinimumRaised         = "minimum-raised"
	RuleItemBoundsNarrowed    = "item-bounds-narrowed"
	RuleBoundWidened          = "bound-widened"
	RuleConstChanged          = "const-changed"
	RuleClampRemoved          = "clamp-removed"
	RuleUnknownFieldsNarrowed = "unknown-fields-narrowed"
	RuleUnknownFieldsWidened  = "unknown-fields-widened"
	RuleExactlyOneOfChanged   = "exactly-one-of-changed"
	RuleLimitNarrowed         = "limit-narrowed"
	RuleLimitWidened          = "limit-widened"

	RuleProtocolConstantChanged = "protocol-constant-changed"
	RuleErrorCodeChanged        = "error-code-changed"
	RuleWireNameChanged         = "wire-name-changed"
	RuleDirectionChanged        = "direction-changed"
	RuleCapabilityGateAdded     = "capability-gate-added"
	RuleStabilityWithdrawn      = "stability-withdrawn"
	RuleProfileRemoved          = "profile-removed"
	RuleProfileEventRemoved     = "profile-event-removed"
	RuleProfileLimitLowered     = "profile-limit-lowered"
	RuleProfileRuleAdded        = "profile-rule-added"
	RuleProfileToleranceRemoved = "profile-tolerance-removed"
	RuleReservedReused          = "reserved-reused"
	RuleReservationRemoved      = "reservation-removed"

	RuleMessageAdded         = "message-added"
	RuleMethodErrorsChanged  = "method-errors-changed"
	RuleDefaultChanged       = "default-changed"
	RuleRequirementChanged   = "requirement-changed"
	RuleTranslationStale     = "translation-stale"
	RuleGoNameChanged        = "go-name-changed"
	RuleToleratedRemoval     = "tolerated-removal"
	RuleInternalLimitChanged = "internal-limit-changed"

	RuleEntryAdded            = "entry-added"
	RuleFieldAdded            = "field-added"
	RuleCompatibleChange      = "compatible-change"
	RuleCapabilityGateRemoved = "capability-gate-removed"
	RuleProfileEventAdded     = "profile-event-added"
	RuleProfileLimitRaised    = "profile-limit-raised"
	RuleProfileRuleRemoved    = "profile-rule-removed"
	RuleProfileToleranceAdded = "profile-tolerance-added"

	RuleStabilityChanged          = "stability-changed"
	RuleSinceChanged              = "since-changed"
	RuleDomainVersionChanged      = "domain-version-changed"
	RuleRemovedWithoutDeprecation = "removed-without-deprecation"
	RuleRemovedNotReserved        = "removed-not-reserved"
	RuleBreakingWithoutMajorBump  = "breaking-without-major-bump"
	RulePartiesChanged            = "parties-changed"

	RuleTextChanged     = "text-changed"
	RuleExamplesChanged = "examples-changed"
)

// Reasons shared by the rules judged by who sends and who accepts a value.
var (
	whyNarrowing = text(
		"Breaking when this repository implements a party that receives the value: its generated decoder now rejects what senders built from the baseline send. When only senders of the value are implemented here, the same edit is reported as compatible-change: they merely send less than they may.",
		"Ломающее, когда этот репозиторий реализует сторону, получающую значение: её сгенерированный декодер теперь отвергает то, что шлют отправители по базовой версии. Когда здесь реализованы только отправители значения, та же правка показывается как compatible-change: они просто шлют меньше, чем могут.")
	whyWidening = text(
		"Breaking when this repository implements a party that sends the value: it may now send what receivers built from the baseline reject or misread. When only receivers of the value are implemented here, the same edit is reported as compatible-change: they accept more than before.",
		"Ломающее, когда этот репозиторий реализует сторону, отправляющую значение: она может начать слать то, что получатели по базовой версии отвергнут или поймут неверно. Когда здесь реализованы только получатели, та же правка показывается как compatible-change: они принимают больше прежнего.")
	whyBoth = text(
		"The edit both narrows and widens the values, so it is breaking when this repository implements either a receiver (senders out there are rejected) or a sender (receivers out there are surprised) of the value; only when neither applies is it compatible-change.",
		"Правка и сужает, и расширяет множество значений, поэтому она ломающая, если этот репозиторий реализует получателя (внешних отправителей отвергнут) или отправителя (внешние получатели встретят непривычное); только если ни то, ни другое, это compatible-change.")
	whyRemoval = text(
		"Breaking whoever implements what: a peer that still uses the element loses it, and nothing on the wire tells it why. A removal also reports whether the element was deprecated first and whether its name is reserved (policy findings).",
		"Ломающее независимо от того, кто что реализует: участник, который ещё пользуется элементом, теряет его, и ничто на проводе не объясняет почему. Для удаления также сообщается, было ли оно объявлено устаревшим и зарезервировано ли имя (находки политики).")
	whyWire = text(
		"Breaking whoever implements what: both ends must agree on it exactly, so a peer built from the baseline and one built from the current spec no longer understand each other.",
		"Ломающее независимо от того, кто что реализует: обе стороны обязаны совпадать в этом точно, и участник по базовой версии перестаёт понимать участника по текущей.")
	whyNever = text(
		"Never blocks: nothing a peer sends is rejected and nothing it receives is new to it.",
		"Никогда не блокирует: ничего из отправленного участником не отвергается, и ничего полученного им не ново для него.")
)
