package contractdiff

// Rule ids. They are part of the public interface: findings, dispositions
// and the reference pages name them, so an id never changes meaning and is
// never reused.
const (
	RuleDomainRemoved           = "domain-removed"
	RuleMethodRemoved           = "method-removed"
	RuleNotificationRemoved     = "notification-removed"
	RuleEventRemoved            = "event-removed"
	RuleErrorRemoved            = "error-removed"
	RuleErrorKindRemoved        = "error-kind-removed"
	RuleCapabilityRemoved       = "capability-removed"
	RuleRuleRemoved             = "rule-removed"
	RuleTypeRemoved             = "type-removed"
	RuleConstantRemoved         = "constant-removed"
	RuleIDRenamed               = "id-renamed"
	RuleFieldRemoved            = "field-removed"
	RuleRequiredFieldAdded      = "required-field-added"
	RuleClosedTypeFieldAdded    = "closed-type-field-added"
	RuleFieldNowRequired        = "field-now-required"
	RuleFieldNowOptional        = "field-now-optional"
	RuleNullableRemoved         = "nullable-removed"
	RuleNullableAdded           = "nullable-added"
	RuleTypeChanged             = "type-changed"
	RuleEnumValueRemoved        = "enum-value-removed"
	RuleVariantRemoved          = "variant-removed"
	RuleMaxLengthLowered        = "max-length-lowered"
	RuleMinLengthRaised         = "min-length-raised"
	RulePatternChanged          = "pattern-changed"
	RuleMaximumLowered          = "maximum-lowered"
	RuleMinimumRaised           = "minimum-raised"
	RuleItemBoundsNarrowed      = "item-bounds-narrowed"
	RuleConstChanged            = "const-changed"
	RuleClampRemoved            = "clamp-removed"
	RuleUnknownFieldsNarrowed   = "unknown-fields-narrowed"
	RuleExactlyOneOfChanged     = "exactly-one-of-changed"
	RuleLimitLowered            = "limit-lowered"
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

	RuleEnumValueAdded      = "enum-value-added"
	RuleVariantAdded        = "variant-added"
	RuleBoundWidened        = "bound-widened"
	RuleDefaultChanged      = "default-changed"
	RuleServerMessageAdded  = "server-message-added"
	RuleMethodErrorsChanged = "method-errors-changed"
	RuleRequirementChanged  = "requirement-changed"
	RuleTranslationStale    = "translation-stale"
	RuleGoNameChanged       = "go-name-changed"

	RuleEntryAdded            = "entry-added"
	RuleFieldAdded            = "field-added"
	RuleCompatibleChange      = "compatible-change"
	RuleLimitRaised           = "limit-raised"
	RuleCapabilityGateRemoved = "capability-gate-removed"
	RuleProfileEventAdded     = "profile-event-added"
	RuleProfileLimitRaised    = "profile-limit-raised"
	RuleProfileRuleRemoved    = "profile-rule-removed"

	RuleStabilityChanged     = "stability-changed"
	RuleSinceChanged         = "since-changed"
	RuleDomainVersionChanged = "domain-version-changed"

	RuleTextChanged     = "text-changed"
	RuleExamplesChanged = "examples-changed"
)

// catalog is every rule. The reference pages under
// Docs/{en,ru}/reference/contract-diff/ are rendered from it.
var catalog = []*Rule{
	// ---- removals ----
	{
		ID: RuleDomainRemoved, Severity: Breaking,
		Title:       text("domain removed", "домен удалён"),
		Description: text("A whole contract is gone: every peer that speaks the protocol loses it.", "Исчез целый контракт: все участники, говорящие на этом протоколе, его теряют."),
		Trigger:     text("A domain present at the baseline is in no spec file of the current tree (the file was deleted, or its domain id changed).", "Домена из базовой версии нет ни в одном файле спецификаций текущего дерева (файл удалён или сменился идентификатор домена)."),
		Example: Example{
			Context: text("`spec/demo.json` is deleted.", "Файл `spec/demo.json` удалён."),
			Before:  `{"domain": {"id": "demo", "version": "1.2"}}`,
		},
		Resolution: text("Keep the spec while any peer still speaks the protocol. If it must go now, record a disposition that names the owner and how peers migrate.", "Сохраняйте спецификацию, пока протоколом кто-то пользуется. Если удалить её нужно сейчас, запишите решение с владельцем и способом миграции."),
	},
	{
		ID: RuleMethodRemoved, Severity: Breaking,
		Title:       text("method removed", "метод удалён"),
		Description: text("Callers of the method now get method-not-found.", "Вызовы метода теперь получают ошибку «метод не найден»."),
		Trigger:     text("A method id of the baseline is missing and no added method has the same content.", "Идентификатора метода из базовой версии нет, и ни один добавленный метод не совпадает с ним по содержимому."),
		Example: Example{
			Context: text("Method `get` is deleted from `methods`.", "Метод `get` удалён из `methods`."),
			Before:  `{"id": "demo.method.get", "method": "get", "params": "GetParams", "result": "GetResult"}`,
		},
		Resolution: text("Mark the method `deprecated` first and remove it once callers have moved; when it has to go at once, record a disposition with the replacement callers should use.", "Сначала пометьте метод как `deprecated` и удалите его, когда вызывающие перейдут на другое; если удалить нужно сразу, запишите решение с заменой для вызывающих."),
	},
	{
		ID: RuleNotificationRemoved, Severity: Breaking,
		Title:       text("notification removed", "уведомление удалено"),
		Description: text("Peers that send the notification send something the contract no longer knows; peers that wait for it wait forever.", "Отправители уведомления шлют то, чего контракт больше не знает; ожидающие его ждут вечно."),
		Trigger:     text("A notification id of the baseline is missing and no added notification has the same content.", "Идентификатора уведомления из базовой версии нет, и ни одно добавленное уведомление не совпадает с ним по содержимому."),
		Example: Example{
			Context: text("Notification `progress` is deleted.", "Уведомление `progress` удалено."),
			Before:  `{"id": "demo.notification.progress", "method": "progress", "direction": "server-to-client"}`,
		},
		Resolution: text("Deprecate it first, or keep sending it until receivers stop relying on it; otherwise record a disposition.", "Сначала объявите его устаревшим или продолжайте отправлять, пока получатели на него полагаются; иначе запишите решение."),
	},
	{
		ID: RuleEventRemoved, Severity: Breaking,
		Title:       text("event removed", "событие удалено"),
		Description: text("Clients that wait for the event never see it again.", "Клиенты, ожидающие событие, его больше не увидят."),
		Trigger:     text("An event id of the baseline is missing and no added event has the same content.", "Идентификатора события из базовой версии нет, и ни одно добавленное событие не совпадает с ним по содержимому."),
		Example: Example{
			Context: text("Event `changed` is deleted.", "Событие `changed` удалено."),
			Before:  `{"id": "demo.event.changed", "name": "changed", "payload": "ChangedEvent"}`,
		},
		Resolution: text("Keep emitting the event while clients depend on it; record a disposition when removing it is deliberate.", "Продолжайте выпускать событие, пока от него зависят клиенты; если удаление намеренное, запишите решение."),
	},
	{
		ID: RuleErrorRemoved, Severity: Breaking,
		Title:       text("error code removed", "код ошибки удалён"),
		Description: text("Clients that branch on the code lose that branch, and servers built from the old contract still send it.", "Клиенты, ветвящиеся по коду, теряют эту ветку, а серверы по старому контракту продолжают его присылать."),
		Trigger:     text("An error id of the baseline is missing and no added error has the same content.", "Идентификатора ошибки из базовой версии нет, и ни одна добавленная ошибка не совпадает с ней по содержимому."),
		Example: Example{
			Context: text("Error `-32010` is deleted.", "Ошибка `-32010` удалена."),
			Before:  `{"id": "demo.error.failure", "code": -32010, "symbol": "Failure"}`,
		},
		Resolution: text("Keep the code reserved and documented; record a disposition if it really leaves the contract.", "Сохраните код зарезервированным и описанным; если он действительно уходит из контракта, запишите решение."),
	},
	{
		ID: RuleErrorKindRemoved, Severity: Breaking,
		Title:       text("error kind removed", "вид ошибки удалён"),
		Description: text("Clients that handle the kind lose it, and its typed details disappear.", "Клиенты, обрабатывающие этот вид, его теряют, а вместе с ним и типизированные подробности."),
		Trigger:     text("An error kind id of the baseline is missing and no added kind has the same content.", "Идентификатора вида ошибки из базовой версии нет, и ни один добавленный вид не совпадает с ним по содержимому."),
		Example: Example{
			Context: text("Kind `not_found` is deleted from error `-32010`.", "Вид `not_found` удалён из ошибки `-32010`."),
			Before:  `{"id": "demo.error-kind.not-found", "kind": "not_found", "details": "NotFoundDetails"}`,
		},
		Resolution: text("Keep the kind until clients no longer match on it; otherwise record a disposition.", "Сохраните вид, пока клиенты его различают; иначе запишите решение."),
	},
	{
		ID: RuleCapabilityRemoved, Severity: Breaking,
		Title:       text("capability removed", "возможность удалена"),
		Description: text("Clients that negotiate the capability lose the features it gates.", "Клиенты, договаривающиеся об этой возможности, теряют то, что она открывает."),
		Trigger:     text("A capability id of the baseline is missing and no added capability has the same content.", "Идентификатора возможности из базовой версии нет, и ни одна добавленная возможность не совпадает с ней по содержимому."),
		Example: Example{
			Context: text("Capability `streaming` is deleted.", "Возможность `streaming` удалена."),
			Before:  `{"id": "demo.capability.streaming", "name": "streaming", "type": "boolean"}`,
		},
		Resolution: text("Keep announcing the capability (it may stay `false`) until clients stop asking; record a disposition otherwise.", "Продолжайте объявлять возможность (пусть со значением `false`), пока клиенты о ней спрашивают; иначе запишите решение."),
	},
	{
		ID: RuleRuleRemoved, Severity: Breaking,
		Title:       text("rule removed", "правило удалено"),
		Description: text("A normative promise is withdrawn; peers and tests that relied on it lose their ground.", "Нормативное обещание отозвано; участники и тесты, опиравшиеся на него, теряют основание."),
		Trigger:     text("A rule id of the baseline (a rule, or a field that carries a rule id) is missing, and no added rule has the same content.", "Идентификатора правила из базовой версии (правила или поля с идентификатором правила) нет, и ни одно добавленное правило не совпадает с ним по содержимому."),
		Example: Example{
			Context: text("Rule `demo.wire.frames` is deleted.", "Правило `demo.wire.frames` удалено."),
			Before:  `{"id": "demo.wire.frames", "stability": "stable"}`,
		},
		Resolution: text("Mark the rule `deprecated` and explain the replacement in its rationale before removing it; record a disposition if it goes now.", "Пометьте правило как `deprecated` и объясните замену в обосновании, прежде чем удалять; если оно уходит сразу, запишите решение."),
	},
	{
		ID: RuleTypeRemoved, Severity: Breaking,
		Title:       text("type removed", "тип удалён"),
		Description: text("Generated code and schemas lose the type; values that used it no longer have a shape.", "Сгенерированный код и схемы теряют тип; у значений, которые его использовали, больше нет формы."),
		Trigger:     text("A type id of the baseline is missing and no added type has the same content.", "Идентификатора типа из базовой версии нет, и ни один добавленный тип не совпадает с ним по содержимому."),
		Example: Example{
			Context: text("Type `Scratch` is deleted.", "Тип `Scratch` удалён."),
			Before:  `{"id": "demo.type.scratch", "name": "Scratch", "kind": "object"}`,
		},
		Resolution: text("If the type was only renamed, keep its content identical so the change is reported as one rename; otherwise record a disposition.", "Если тип только переименован, сохраните содержимое без изменений, и изменение будет показано как одно переименование; иначе запишите решение."),
	},
	{
		ID: RuleConstantRemoved, Severity: Breaking,
		Title:       text("constant removed", "константа удалена"),
		Description: text("A limit, default or protocol literal disappears from the contract and from generated code.", "Предел, значение по умолчанию или литерал протокола исчезает из контракта и из сгенерированного кода."),
		Trigger:     text("A constant id of the baseline is missing and no added constant has the same content.", "Идентификатора константы из базовой версии нет, и ни одна добавленная константа не совпадает с ней по содержимому."),
		Example: Example{
			Context: text("Limit `demo.limit.frame-bytes` is deleted.", "Предел `demo.limit.frame-bytes` удалён."),
			Before:  `{"id": "demo.limit.frame-bytes", "symbol": "MaxFrameBytes", "kind": "limit", "value": 1024}`,
		},
		Resolution: text("Keep the constant while runtimes enforce it; record a disposition when the bound itself goes away.", "Сохраните константу, пока её соблюдают среды выполнения; если исчезает само ограничение, запишите решение."),
	},
	{
		ID: RuleIDRenamed, Severity: Breaking,
		Title:       text("id renamed", "идентификатор переименован"),
		Description: text("The entry is unchanged but its stable id is not: links, dispositions, tests that name it and generated names break.", "Запись не изменилась, но её стабильный идентификатор другой: ломаются ссылки, решения, тесты, которые его называют, и сгенерированные имена."),
		Trigger:     text("An id of the baseline is missing and an added entry of the same section has exactly the same content (types may also change their name). Reported once, instead of a removal and an addition.", "Идентификатора из базовой версии нет, а добавленная запись того же раздела полностью совпадает с ней по содержимому (у типа может смениться и имя). Показывается один раз вместо удаления и добавления."),
		Example: Example{
			Context: text("Rule `demo.wire.frames` becomes `demo.wire.framing` with the same texts.", "Правило `demo.wire.frames` становится `demo.wire.framing` с теми же текстами."),
			Before:  `{"id": "demo.wire.frames"}`,
			After:   `{"id": "demo.wire.framing"}`,
		},
		Resolution: text("Ids are forever: keep the old id. If the rename is worth it, record a disposition and update every reference in the same change.", "Идентификаторы вечны: оставьте старый. Если переименование того стоит, запишите решение и обновите все ссылки в том же изменении."),
	},
	{
		ID: RuleFieldRemoved, Severity: Breaking,
		Title:       text("field removed", "поле удалено"),
		Description: text("Receivers lose a member they read, and senders send a member the other side now rejects or drops.", "Получатели теряют поле, которое читали, а отправители шлют поле, которое другая сторона теперь отвергает или отбрасывает."),
		Trigger:     text("A field of an object type at the baseline is missing from the same type now, whoever sends the type.", "Поля объектного типа из базовой версии теперь нет в этом типе, кто бы ни отправлял тип."),
		Example: Example{
			Context: text("Field `note` is deleted from `GetResult`.", "Поле `note` удалено из `GetResult`."),
			Before:  `{"name": "note", "type": "string", "required": false}`,
		},
		Resolution: text("Keep the field, optional and documented as ignored, until peers stop using it; otherwise record a disposition.", "Оставьте поле необязательным и опишите его как игнорируемое, пока им пользуются; иначе запишите решение."),
	},
	// ---- narrowing what clients may send, widening what servers send ----
	{
		ID: RuleRequiredFieldAdded, Severity: Breaking,
		Title:       text("required field added to a client-sent type", "в тип, отправляемый клиентом, добавлено обязательное поле"),
		Description: text("Every existing client omits the new field, so every request it sends becomes invalid.", "Все существующие клиенты не передают новое поле, поэтому каждый их запрос становится недопустимым."),
		Trigger:     text("A required field is added to a type that clients send (method params, client notifications, results of server-to-client methods).", "В тип, который отправляют клиенты (параметры методов, уведомления клиента, результаты методов сервер→клиент), добавлено обязательное поле."),
		Example: Example{
			Context: text("`GetParams` is the params type of method `get`.", "`GetParams` — тип параметров метода `get`."),
			After:   `{"name": "scope", "type": "string", "required": true}`,
		},
		Resolution: text("Add the field as optional with a default that keeps the old behaviour.", "Добавьте поле необязательным, со значением по умолчанию, сохраняющим прежнее поведение."),
	},
	{
		ID: RuleClosedTypeFieldAdded, Severity: Breaking,
		Title:       text("field added to a closed server-sent type", "в закрытый тип, отправляемый сервером, добавлено поле"),
		Description: text("The type rejects unknown members, so clients built from the baseline reject every value that carries the new field.", "Тип отвергает неизвестные поля, поэтому клиенты по базовой версии отвергнут каждое значение с новым полем."),
		Trigger:     text("Any field is added to a type that the server sends and whose baseline `additionalFields` is `reject`.", "В тип, который отправляет сервер и у которого в базовой версии `additionalFields` равно `reject`, добавлено любое поле."),
		Example: Example{
			Context: text("`GetResult` is the result of `get` and has `\"additionalFields\": \"reject\"`.", "`GetResult` — результат `get`, у него `\"additionalFields\": \"reject\"`."),
			After:   `{"name": "cursor", "type": "string", "required": false}`,
		},
		Resolution: text("Send the new data only after clients opt in (a capability), or open the type (`ignore`) in one release and add the field in a later one.", "Отправляйте новые данные только клиентам, которые на это согласились (через возможность), или сначала откройте тип (`ignore`), а поле добавьте в следующем выпуске."),
	},
	{
		ID: RuleFieldNowRequired, Severity: Breaking,
		Title:       text("client-sent field made required", "поле, отправляемое клиентом, стало обязательным"),
		Description: text("Clients that omit the field now send invalid values.", "Клиенты, не передающие поле, теперь отправляют недопустимые значения."),
		Trigger:     text("A field of a client-sent type changes from optional to required.", "Поле типа, отправляемого клиентом, из необязательного стало обязательным."),
		Example: Example{
			Context: text("Field `mode` of `GetParams`.", "Поле `mode` типа `GetParams`."),
			Before:  `{"name": "mode", "required": false}`,
			After:   `{"name": "mode", "required": true}`,
		},
		Resolution: text("Keep the field optional and give it a default.", "Оставьте поле необязательным и задайте значение по умолчанию."),
	},
	{
		ID: RuleFieldNowOptional, Severity: Breaking,
		Title:       text("server-sent field made optional", "поле, отправляемое сервером, стало необязательным"),
		Description: text("Clients that read the field unconditionally fail when the server leaves it out.", "Клиенты, читающие поле безусловно, сломаются, когда сервер его не пришлёт."),
		Trigger:     text("A field of a server-sent type changes from required to optional.", "Поле типа, отправляемого сервером, из обязательного стало необязательным."),
		Example: Example{
			Context: text("Field `total` of `GetResult`.", "Поле `total` типа `GetResult`."),
			Before:  `{"name": "total", "required": true}`,
			After:   `{"name": "total", "required": false}`,
		},
		Resolution: text("Keep sending the field; if there is no meaningful value, define one (zero, empty) instead of omitting it.", "Продолжайте отправлять поле; если осмысленного значения нет, определите его (ноль, пустая строка), а не опускайте поле."),
	},
	{
		ID: RuleNullableRemoved, Severity: Breaking,
		Title:       text("client-sent field no longer nullable", "поле, отправляемое клиентом, больше не допускает null"),
		Description: text("Clients that send `null` are now rejected.", "Клиенты, отправляющие `null`, теперь получают отказ."),
		Trigger:     text("`nullable` is removed from a field of a client-sent type.", "У поля типа, отправляемого клиентом, убран признак `nullable`."),
		Example: Example{
			Context: text("Field `cursor` of a params type.", "Поле `cursor` типа параметров."),
			Before:  `{"name": "cursor", "required": true, "nullable": true}`,
			After:   `{"name": "cursor", "required": true}`,
		},
		Resolution: text("Keep accepting `null` and treat it as the absent value.", "Продолжайте принимать `null` и считайте его отсутствующим значением."),
	},
	{
		ID: RuleNullableAdded, Severity: Breaking,
		Title:       text("server-sent field made nullable", "поле, отправляемое сервером, стало допускать null"),
		Description: text("Clients that expect a value get `null` and fail.", "Клиенты, ожидающие значение, получают `null` и ломаются."),
		Trigger:     text("`nullable` is added to a field of a server-sent type.", "У поля типа, отправляемого сервером, появился признак `nullable`."),
		Example: Example{
			Context: text("Field `status` of `GetResult`.", "Поле `status` типа `GetResult`."),
			Before:  `{"name": "status", "type": "Status", "required": true}`,
			After:   `{"name": "status", "type": "Status", "required": true, "nullable": true}`,
		},
		Resolution: text("Add a separate field or an enum value that says \"unknown\" instead of sending `null`.", "Вместо `null` добавьте отдельное поле или значение перечисления «неизвестно»."),
	},
	{
		ID: RuleTypeChanged, Severity: Breaking,
		Title:       text("type changed", "тип изменён"),
		Description: text("Values of the old type no longer decode as the new one, in either direction.", "Значения старого типа не декодируются как новый, в обе стороны."),
		Trigger:     text("The type of a field, alias, method params or result, notification params, event payload, error data, error kind details or capability changes; a named type changes its kind, enum base or union tag member; a constant changes its type, kind or unit.", "Изменился тип поля, псевдонима, параметров или результата метода, параметров уведомления, данных события, данных ошибки, подробностей вида ошибки или возможности; у именованного типа сменился вид, основа перечисления или поле-тег объединения; у константы сменились тип, вид или единица."),
		Example: Example{
			Context: text("Field `total` of `GetResult`.", "Поле `total` типа `GetResult`."),
			Before:  `{"name": "total", "type": "integer"}`,
			After:   `{"name": "total", "type": "decimal-u64"}`,
		},
		Resolution: text("Add a new field (or method) with the new type and deprecate the old one.", "Добавьте новое поле (или метод) с новым типом, а старое объявите устаревшим."),
	},
	{
		ID: RuleEnumValueRemoved, Severity: Breaking,
		Title:       text("enum value removed from a client-sent type", "из перечисления, отправляемого клиентом, удалено значение"),
		Description: text("Clients that send the value are now rejected.", "Клиенты, отправляющие это значение, теперь получают отказ."),
		Trigger:     text("A value is removed from an enum that clients send.", "Из перечисления, которое отправляют клиенты, удалено значение."),
		Example: Example{
			Context: text("`Mode` is sent in `GetParams`.", "`Mode` передаётся в `GetParams`."),
			Before:  `{"values": ["fast", "exact"]}`,
			After:   `{"values": ["fast"]}`,
		},
		Resolution: text("Keep accepting the value and map it to the closest remaining behaviour; mark it `deprecated`.", "Продолжайте принимать значение, сопоставив его с ближайшим оставшимся поведением; пометьте его как `deprecated`."),
	},
	{
		ID: RuleVariantRemoved, Severity: Breaking,
		Title:       text("variant removed from a client-sent type", "из типа, отправляемого клиентом, удалён вариант"),
		Description: text("Clients that send the variant are now rejected.", "Клиенты, отправляющие этот вариант, теперь получают отказ."),
		Trigger:     text("A variant is removed from a union, or an alternative from an alternatives type, that clients send.", "Из объединения или из типа-альтернативы, которые отправляют клиенты, удалён вариант."),
		Example: Example{
			Context: text("Union `Filter` is sent in `GetParams`.", "Объединение `Filter` передаётся в `GetParams`."),
			Before:  `{"tag": "kind", "variants": [{"tag": "byName"}, {"tag": "all"}]}`,
			After:   `{"tag": "kind", "variants": [{"tag": "byName"}]}`,
		},
		Resolution: text("Keep accepting the variant and mark it `deprecated`.", "Продолжайте принимать вариант и пометьте его как `deprecated`."),
	},
	{
		ID: RuleMaxLengthLowered, Severity: Breaking,
		Title:       text("maxLength lowered on a client-sent string", "maxLength строки, отправляемой клиентом, уменьшен"),
		Description: text("Clients that send longer strings are now rejected.", "Клиенты, отправляющие более длинные строки, теперь получают отказ."),
		Trigger:     text("`maxLength` is lowered or added on a string that clients send.", "У строки, которую отправляют клиенты, `maxLength` уменьшен или добавлен."),
		Example: Example{
			Context: text("Field `name` of `GetParams`.", "Поле `name` типа `GetParams`."),
			Before:  `{"maxLength": 8}`,
			After:   `{"maxLength": 4}`,
		},
		Resolution: text("Keep the old bound; if the runtime cannot honour it, record a disposition that says what clients must change.", "Сохраните прежнюю границу; если среда выполнения не может её соблюдать, запишите решение о том, что должны изменить клиенты."),
	},
	{
		ID: RuleMinLengthRaised, Severity: Breaking,
		Title:       text("minLength raised on a client-sent string", "minLength строки, отправляемой клиентом, увеличен"),
		Description: text("Clients that send shorter strings are now rejected.", "Клиенты, отправляющие более короткие строки, теперь получают отказ."),
		Trigger:     text("`minLength` is raised or added on a string that clients send.", "У строки, которую отправляют клиенты, `minLength` увеличен или добавлен."),
		Example: Example{
			Context: text("Field `name` of `GetParams`.", "Поле `name` типа `GetParams`."),
			Before:  `{"minLength": 1}`,
			After:   `{"minLength": 3}`,
		},
		Resolution: text("Keep the old bound, or record a disposition with the migration for clients.", "Сохраните прежнюю границу или запишите решение с описанием миграции для клиентов."),
	},
	{
		ID: RulePatternChanged, Severity: Breaking,
		Title:       text("pattern changed on a client-sent string", "шаблон строки, отправляемой клиентом, изменён"),
		Description: text("A new or different pattern may reject strings clients already send.", "Новый или другой шаблон может отвергнуть строки, которые клиенты уже отправляют."),
		Trigger:     text("`pattern` is added or changed on a string that clients send.", "У строки, которую отправляют клиенты, `pattern` добавлен или изменён."),
		Example: Example{
			Context: text("Field `name` of `GetParams`.", "Поле `name` типа `GetParams`."),
			Before:  `{"pattern": "^[a-z]+$"}`,
			After:   `{"pattern": "^[a-z]{2,}$"}`,
		},
		Resolution: text("Only widen a pattern on client-sent values; when it must get stricter, record a disposition.", "Расширяйте шаблон значений, отправляемых клиентом, только в сторону ослабления; если он должен стать строже, запишите решение."),
	},
	{
		ID: RuleMaximumLowered, Severity: Breaking,
		Title:       text("maximum lowered on a client-sent number", "maximum числа, отправляемого клиентом, уменьшен"),
		Description: text("Clients that send larger numbers are now rejected.", "Клиенты, отправляющие большие числа, теперь получают отказ."),
		Trigger:     text("A literal `maximum` is lowered or added on a number that clients send (a bound that names a constant is judged on the constant).", "У числа, которое отправляют клиенты, буквальный `maximum` уменьшен или добавлен (граница, названная константой, оценивается по константе)."),
		Example: Example{
			Context: text("A client-sent `percent` field.", "Поле `percent`, отправляемое клиентом."),
			Before:  `{"maximum": 100}`,
			After:   `{"maximum": 50}`,
		},
		Resolution: text("Clamp larger values instead of rejecting them (`clamp`), or record a disposition.", "Вместо отказа ограничивайте большие значения (`clamp`) или запишите решение."),
	},
	{
		ID: RuleMinimumRaised, Severity: Breaking,
		Title:       text("minimum raised on a client-sent number", "minimum числа, отправляемого клиентом, увеличен"),
		Description: text("Clients that send smaller numbers are now rejected.", "Клиенты, отправляющие меньшие числа, теперь получают отказ."),
		Trigger:     text("A literal `minimum` is raised or added on a number that clients send.", "У числа, которое отправляют клиенты, буквальный `minimum` увеличен или добавлен."),
		Example: Example{
			Context: text("Field `limit` of `GetParams`.", "Поле `limit` типа `GetParams`."),
			Before:  `{"minimum": 1}`,
			After:   `{"minimum": 2}`,
		},
		Resolution: text("Clamp smaller values instead of rejecting them, or record a disposition.", "Вместо отказа ограничивайте меньшие значения или запишите решение."),
	},
	{
		ID: RuleItemBoundsNarrowed, Severity: Breaking,
		Title:       text("array bounds narrowed on a client-sent array", "границы массива, отправляемого клиентом, сужены"),
		Description: text("Clients that send more (or fewer) items are now rejected.", "Клиенты, отправляющие больше (или меньше) элементов, теперь получают отказ."),
		Trigger:     text("`maxItems` is lowered or added, or `minItems` raised or added, on an array that clients send.", "У массива, который отправляют клиенты, `maxItems` уменьшен или добавлен либо `minItems` увеличен или добавлен."),
		Example: Example{
			Context: text("Field `tags` of `GetParams`.", "Поле `tags` типа `GetParams`."),
			Before:  `{"maxItems": 4}`,
			After:   `{"maxItems": 2}`,
		},
		Resolution: text("Keep the old bounds, or record a disposition with the migration.", "Сохраните прежние границы или запишите решение с описанием миграции."),
	},
	{
		ID: RuleConstChanged, Severity: Breaking,
		Title:       text("const changed", "const изменён"),
		Description: text("A value fixed by the contract changed: clients sending the old value are rejected, or clients expecting it get another.", "Значение, закреплённое контрактом, изменилось: клиентов со старым значением отвергают, или клиенты, ожидающие его, получают другое."),
		Trigger:     text("`const` is added or changed on a client-sent value, or changed or removed on a server-sent one.", "`const` добавлен или изменён у значения, отправляемого клиентом, либо изменён или удалён у значения, отправляемого сервером."),
		Example: Example{
			Context: text("Field `accepted` of a result type.", "Поле `accepted` типа результата."),
			Before:  `{"const": true}`,
			After:   `{"const": false}`,
		},
		Resolution: text("Introduce a new field or protocol version instead of changing a fixed value.", "Вместо изменения закреплённого значения введите новое поле или новую версию протокола."),
	},
	{
		ID: RuleClampRemoved, Severity: Breaking,
		Title:       text("clamp removed on a client-sent number", "clamp у числа, отправляемого клиентом, убран"),
		Description: text("Out-of-range values that used to be clamped are now rejected.", "Значения вне диапазона, которые раньше ограничивались, теперь отвергаются."),
		Trigger:     text("`clamp` is removed from the constraints of an integer that clients send.", "Из ограничений целого числа, которое отправляют клиенты, убран `clamp`."),
		Example: Example{
			Context: text("Field `limit` of `GetParams`.", "Поле `limit` типа `GetParams`."),
			Before:  `{"minimum": 1, "maximum": 10, "clamp": true}`,
			After:   `{"minimum": 1, "maximum": 10}`,
		},
		Resolution: text("Keep clamping; record a disposition if strict rejection is required.", "Продолжайте ограничивать значения; если нужен строгий отказ, запишите решение."),
	},
	{
		ID: RuleUnknownFieldsNarrowed, Severity: Breaking,
		Title:       text("client-sent type accepts fewer unknown members", "тип, отправляемый клиентом, принимает меньше неизвестных полей"),
		Description: text("Clients that send extra members are now rejected (`reject`), or the members are dropped instead of carried (`keep` to `ignore`).", "Клиенты с дополнительными полями теперь получают отказ (`reject`), или эти поля отбрасываются вместо передачи дальше (`keep` → `ignore`)."),
		Trigger:     text("`additionalFields` of a client-sent type moves towards `reject` (`keep` → `ignore` → `reject`).", "`additionalFields` типа, отправляемого клиентом, сдвинулся к `reject` (`keep` → `ignore` → `reject`)."),
		Example: Example{
			Context: text("`CancelParams` is sent in the `cancel` notification.", "`CancelParams` передаётся в уведомлении `cancel`."),
			Before:  `{"additionalFields": "ignore"}`,
			After:   `{"additionalFields": "reject"}`,
		},
		Resolution: text("Keep the more tolerant setting, or record a disposition that lists the members clients must stop sending.", "Сохраните более терпимую настройку или запишите решение с перечнем полей, которые клиенты должны перестать отправлять."),
	},
	{
		ID: RuleExactlyOneOfChanged, Severity: Breaking,
		Title:       text("exactlyOneOf changed", "exactlyOneOf изменён"),
		Description: text("Which members must appear together changed: clients may send a combination that is now rejected, or receive one they were told cannot happen.", "Изменилось, какие поля должны встречаться вместе: клиенты могут отправить теперь отвергаемое сочетание или получить то, которого по контракту не бывает."),
		Trigger:     text("`exactlyOneOf` is added or changed on a client-sent type, or changed or removed on a server-sent one.", "`exactlyOneOf` добавлен или изменён у типа, отправляемого клиентом, либо изменён или удалён у типа, отправляемого сервером."),
		Example: Example{
			Context: text("`GetParams` with optional fields `id` and `filter`.", "`GetParams` с необязательными полями `id` и `filter`."),
			After:   `{"exactlyOneOf": ["id", "filter"]}`,
		},
		Resolution: text("Add a new type or method with the new rule and deprecate the old one.", "Добавьте новый тип или метод с новым правилом, а старый объявите устаревшим."),
	},
	{
		ID: RuleLimitLowered, Severity: Breaking,
		Title:       text("limit lowered", "предел уменьшен"),
		Description: text("Runtimes enforce the limit, so input that fit the old limit is now rejected.", "Среды выполнения соблюдают предел, поэтому данные, помещавшиеся в старый, теперь отвергаются."),
		Trigger:     text("The value of a `limit` constant is lowered (or changed when it is not a number).", "Значение константы вида `limit` уменьшено (или изменено, если это не число)."),
		Example: Example{
			Context: text("`demo.limit.items` bounds `GetParams.limit`.", "`demo.limit.items` ограничивает `GetParams.limit`."),
			Before:  `{"id": "demo.limit.items", "kind": "limit", "value": 10}`,
			After:   `{"id": "demo.limit.items", "kind": "limit", "value": 8}`,
		},
		Resolution: text("Keep the old limit, or record a disposition with the reason (memory, abuse) and how peers keep under it.", "Сохраните прежний предел или запишите решение с причиной (память, злоупотребления) и тем, как участникам в него уложиться."),
	},
	{
		ID: RuleProtocolConstantChanged, Severity: Breaking,
		Title:       text("protocol constant changed", "константа протокола изменена"),
		Description: text("A literal both sides must agree on (a version string, a magic value) changed.", "Изменился литерал, о котором обе стороны обязаны договориться (строка версии, магическое значение)."),
		Trigger:     text("The value of a `protocol` constant changes.", "Изменилось значение константы вида `protocol`."),
		Example: Example{
			Context: text("Constant `demo.protocol.version`.", "Константа `demo.protocol.version`."),
			Before:  `{"value": 1}`,
			After:   `{"value": 2}`,
		},
		Resolution: text("Support both values during a transition (negotiate the version) and record a disposition.", "На время перехода поддерживайте оба значения (договаривайтесь о версии) и запишите решение."),
	},
	{
		ID: RuleErrorCodeChanged, Severity: Breaking,
		Title:       text("error code changed", "код ошибки изменён"),
		Description: text("Clients that branch on the number see a different one for the same error.", "Клиенты, ветвящиеся по номеру, получают для той же ошибки другой номер."),
		Trigger:     text("The `code` of an error changes, or the domain's `invalidParams` names another error.", "Изменился `code` ошибки, или `invalidParams` домена указывает на другую ошибку."),
		Example: Example{
			Context: text("Error `demo.error.failure`.", "Ошибка `demo.error.failure`."),
			Before:  `{"code": -32010}`,
			After:   `{"code": -32011}`,
		},
		Resolution: text("Codes are forever: add a new error with the new code and keep the old one.", "Коды вечны: добавьте новую ошибку с новым кодом и сохраните старую."),
	},
	{
		ID: RuleWireNameChanged, Severity: Breaking,
		Title:       text("wire name changed", "имя на проводе изменено"),
		Description: text("The entry keeps its id but peers see another name on the wire: method, notification, event, error kind or capability name.", "Запись сохранила идентификатор, но участники видят на проводе другое имя: метода, уведомления, события, вида ошибки или возможности."),
		Trigger:     text("`method`, `name` or `kind` of an entry with an unchanged id changes.", "У записи с прежним идентификатором изменились `method`, `name` или `kind`."),
		Example: Example{
			Context: text("Method `demo.method.get`.", "Метод `demo.method.get`."),
			Before:  `{"method": "get"}`,
			After:   `{"method": "fetch"}`,
		},
		Resolution: text("Add the new name as a new entry and deprecate the old one.", "Добавьте новое имя новой записью, а старую объявите устаревшей."),
	},
	{
		ID: RuleDirectionChanged, Severity: Breaking,
		Title:       text("direction changed", "направление изменено"),
		Description: text("The side that sends a method, notification or event switched; both sides break.", "Сменилась сторона, отправляющая метод, уведомление или событие; ломаются обе."),
		Trigger:     text("`direction` of a method, notification or event changes.", "Изменилось `direction` метода, уведомления или события."),
		Example: Example{
			Context: text("Notification `cancel`.", "Уведомление `cancel`."),
			Before:  `{"direction": "client-to-server"}`,
			After:   `{"direction": "server-to-client"}`,
		},
		Resolution: text("Add a new entry for the other direction.", "Добавьте новую запись для другого направления."),
	},
	{
		ID: RuleCapabilityGateAdded, Severity: Breaking,
		Title:       text("capability gate added", "добавлено условие возможности"),
		Description: text("Peers that do not negotiate the capability lose what used to be available to everyone.", "Участники, не договорившиеся о возможности, теряют то, что раньше было доступно всем."),
		Trigger:     text("An entry, type, field, enum value or variant gains a `capability` or moves to another one, or a capability gains or changes its client `optIn` flag.", "Запись, тип, поле, значение перечисления или вариант получили `capability` или перешли на другую возможность, либо у возможности появился или сменился клиентский флаг `optIn`."),
		Example: Example{
			Context: text("Field `note` of `GetResult`.", "Поле `note` типа `GetResult`."),
			Before:  `{"name": "note"}`,
			After:   `{"name": "note", "capability": "streaming"}`,
		},
		Resolution: text("Gate only what is new; keep existing behaviour available without the capability.", "Закрывайте условием только новое; прежнее поведение оставьте доступным без возможности."),
	},
	{
		ID: RuleStabilityWithdrawn, Severity: Breaking,
		Title:       text("stability withdrawn", "стабильность отозвана"),
		Description: text("A promise of stability is taken back: what peers were allowed to rely on may now change without notice.", "Обещание стабильности отозвано: то, на что участникам разрешалось полагаться, теперь может измениться без предупреждения."),
		Trigger:     text("Stability goes from `stable` to `experimental` or `internal`, or from `experimental` or `deprecated` to `internal` (for the domain or any entry, type, field, value or variant).", "Стабильность меняется со `stable` на `experimental` или `internal` либо с `experimental` или `deprecated` на `internal` (у домена или любой записи, типа, поля, значения или варианта)."),
		Example: Example{
			Context: text("Method `get`.", "Метод `get`."),
			Before:  `{"stability": "stable"}`,
			After:   `{"stability": "experimental"}`,
		},
		Resolution: text("Deprecate instead: `deprecated` keeps the promise while announcing the end.", "Вместо этого объявите устаревшим: `deprecated` сохраняет обещание и объявляет о его конце."),
	},
	// ---- warnings ----
	{
		ID: RuleProfileRemoved, Severity: Breaking,
		Title:       text("profile removed", "профиль удалён"),
		Description: text("Users who select the profile by name can no longer do so, and runtimes that enforce it lose its definition.", "Пользователи, выбирающие профиль по имени, больше не смогут этого сделать, а среды выполнения, соблюдающие его, теряют его определение."),
		Trigger:     text("A profile id of the baseline is missing and no added profile has the same content.", "Идентификатора профиля из базовой версии нет, и ни один добавленный профиль не совпадает с ним по содержимому."),
		Example: Example{
			Context: text("Profile `strict` is deleted from `profiles`.", "Профиль `strict` удалён из `profiles`."),
			Before:  `{"id": "demo.profile.strict", "name": "strict", "events": ["demo.event.changed"]}`,
		},
		Resolution: text("Mark the profile `deprecated` and keep it until its users have moved to another; otherwise record a disposition naming the replacement.", "Пометьте профиль как `deprecated` и сохраняйте его, пока пользователи не перейдут на другой; иначе запишите решение с указанием замены."),
	},
	{
		ID: RuleProfileEventRemoved, Severity: Breaking,
		Title:       text("event removed from a profile", "событие убрано из профиля"),
		Description: text("Records that carry the event were accepted under the profile and are now rejected.", "Записи с этим событием принимались в профиле, а теперь отвергаются."),
		Trigger:     text("An event id is dropped from a profile's `events`.", "Идентификатор события убран из списка `events` профиля."),
		Example: Example{
			Context: text("Profile `strict` stops accepting `changed`.", "Профиль `strict` перестаёт принимать `changed`."),
			Before:  `{"id": "demo.profile.strict", "events": ["demo.event.changed"]}`,
			After:   `{"id": "demo.profile.strict", "events": []}`,
		},
		Resolution: text("Keep the event in the profile, or record a disposition saying why producers must stop sending it under this profile.", "Оставьте событие в профиле или запишите решение, объясняющее, почему отправители должны перестать посылать его в этом профиле."),
	},
	{
		ID: RuleProfileLimitLowered, Severity: Breaking,
		Title:       text("limit added to a profile", "в профиль добавлен предел"),
		Description: text("The profile was unbounded in this respect and now rejects input above the limit: its limit was lowered from none to the constant's value.", "Профиль не был ограничен в этом отношении, а теперь отвергает данные сверх предела: его предел снижен от отсутствующего до значения константы."),
		Trigger:     text("A limit constant is added to a profile's `constants`. A lowered value of a constant the profile already lists is reported once, on the constant, as limit-lowered.", "Константа-предел добавлена в список `constants` профиля. Уменьшение значения константы, которую профиль уже перечисляет, сообщается один раз, на самой константе, как limit-lowered."),
		Example: Example{
			Context: text("Profile `strict` becomes bounded by `demo.limit.items`.", "Профиль `strict` начинает ограничиваться `demo.limit.items`."),
			Before:  `{"id": "demo.profile.strict", "constants": []}`,
			After:   `{"id": "demo.profile.strict", "constants": ["demo.limit.items"]}`,
		},
		Resolution: text("Add the limit in a new profile instead, or record a disposition with the reason and how producers keep under it.", "Добавьте предел в новый профиль или запишите решение с причиной и тем, как отправителям в него уложиться."),
	},
	{
		ID: RuleProfileRuleAdded, Severity: Breaking,
		Title:       text("rule added to a profile", "в профиль добавлено правило"),
		Description: text("A rule now applies under the profile, so a record that satisfied the profile may break the new rule.", "В профиле теперь действует ещё одно правило, и запись, удовлетворявшая профилю, может его нарушить."),
		Trigger:     text("A rule id is added to a profile's `rules`.", "Идентификатор правила добавлен в список `rules` профиля."),
		Example: Example{
			Context: text("Profile `strict` now enforces `demo.wire.frames`.", "Профиль `strict` теперь соблюдает `demo.wire.frames`."),
			Before:  `{"id": "demo.profile.strict", "rules": []}`,
			After:   `{"id": "demo.profile.strict", "rules": ["demo.wire.frames"]}`,
		},
		Resolution: text("Record a disposition saying which records the rule now rejects and how their producers adapt.", "Запишите решение о том, какие записи правило теперь отвергает и как их отправителям приспособиться."),
	},
	{
		ID: RuleEnumValueAdded, Severity: Warning,
		Title:       text("enum value added to a server-sent type", "в перечисление, отправляемое сервером, добавлено значение"),
		Description: text("Clients that switch over the enum without a default case meet a value they do not know.", "Клиенты, разбирающие перечисление без ветки по умолчанию, встретят незнакомое значение."),
		Trigger:     text("A value is added to an enum that the server sends.", "В перечисление, которое отправляет сервер, добавлено значение."),
		Example: Example{
			Context: text("`Status` is sent in `GetResult`.", "`Status` передаётся в `GetResult`."),
			Before:  `{"values": ["ok", "partial"]}`,
			After:   `{"values": ["ok", "partial", "stale"]}`,
		},
		Resolution: text("Make sure the spec tells clients to tolerate unknown values, or send the new value only to clients that opt in.", "Убедитесь, что спецификация велит клиентам терпеть неизвестные значения, или отправляйте новое значение только согласившимся клиентам."),
	},
	{
		ID: RuleVariantAdded, Severity: Warning,
		Title:       text("variant added to a server-sent type", "в тип, отправляемый сервером, добавлен вариант"),
		Description: text("Clients that decode the union strictly meet a tag they do not know.", "Клиенты, строго декодирующие объединение, встретят незнакомый тег."),
		Trigger:     text("A variant is added to a union, or an alternative to an alternatives type, that the server sends.", "В объединение или тип-альтернативу, которые отправляет сервер, добавлен вариант."),
		Example: Example{
			Context: text("Union `Item` is sent in `GetResult`.", "Объединение `Item` передаётся в `GetResult`."),
			Before:  `{"tag": "kind", "variants": [{"tag": "file"}, {"tag": "dir"}]}`,
			After:   `{"tag": "kind", "variants": [{"tag": "file"}, {"tag": "dir"}, {"tag": "link"}]}`,
		},
		Resolution: text("Gate the variant behind a capability, or confirm that clients skip unknown tags.", "Закройте вариант условием возможности или убедитесь, что клиенты пропускают неизвестные теги."),
	},
	{
		ID: RuleBoundWidened, Severity: Warning,
		Title:       text("bound widened on a server-sent value", "граница значения, отправляемого сервером, расширена"),
		Description: text("Clients that sized buffers or checks for the old bound may meet larger, smaller or differently shaped values.", "Клиенты, рассчитавшие буферы или проверки на старую границу, могут получить большие, меньшие или иначе устроенные значения."),
		Trigger:     text("On a server-sent value: `maximum`, `maxLength` or `maxItems` raised or removed, `minimum`, `minLength` or `minItems` lowered or removed, `pattern` changed or removed, or `clamp` added.", "У значения, отправляемого сервером: `maximum`, `maxLength` или `maxItems` увеличены или убраны, `minimum`, `minLength` или `minItems` уменьшены или убраны, `pattern` изменён или убран, либо добавлен `clamp`."),
		Example: Example{
			Context: text("Field `total` of `GetResult`.", "Поле `total` типа `GetResult`."),
			Before:  `{"minimum": 0, "maximum": 1000}`,
			After:   `{"minimum": 0, "maximum": 100000}`,
		},
		Resolution: text("Check that known clients handle the wider range, then accept the warning.", "Проверьте, что известные клиенты справляются с более широким диапазоном, и примите предупреждение."),
	},
	{
		ID: RuleDefaultChanged, Severity: Warning,
		Title:       text("default changed", "значение по умолчанию изменено"),
		Description: text("Peers that leave a value out get different behaviour without changing anything.", "Участники, не передающие значение, получают другое поведение, ничего не меняя."),
		Trigger:     text("The `default` of a field is added, removed or changed, or the value of a `default` constant changes.", "У поля добавлен, убран или изменён `default`, или изменилось значение константы вида `default`."),
		Example: Example{
			Context: text("`demo.default.page-size` is the default of `GetParams.limit`.", "`demo.default.page-size` — значение по умолчанию для `GetParams.limit`."),
			Before:  `{"value": 5}`,
			After:   `{"value": 3}`,
		},
		Resolution: text("Check that no peer depends on the old default; say in the change log what changed.", "Проверьте, что никто не зависит от прежнего значения, и опишите изменение в журнале изменений."),
	},
	{
		ID: RuleServerMessageAdded, Severity: Warning,
		Title:       text("server sends a new kind of message", "сервер отправляет новый вид сообщения"),
		Description: text("Clients may receive a method call, notification, event, error code or error kind they do not know.", "Клиенты могут получить незнакомые вызов метода, уведомление, событие, код или вид ошибки."),
		Trigger:     text("A server-to-client method or notification, an event, an error or an error kind is added.", "Добавлены метод или уведомление сервер→клиент, событие, ошибка или вид ошибки."),
		Example: Example{
			Context: text("A new server notification.", "Новое уведомление сервера."),
			After:   `{"id": "demo.notification.log", "method": "log", "direction": "server-to-client"}`,
		},
		Resolution: text("Confirm that clients ignore what they do not know, or send it only after the client opts in.", "Убедитесь, что клиенты игнорируют незнакомое, или отправляйте новое только после согласия клиента."),
	},
	{
		ID: RuleMethodErrorsChanged, Severity: Warning,
		Title:       text("method may return another error", "метод может вернуть другую ошибку"),
		Description: text("Callers may meet an error the method did not list before.", "Вызывающие могут встретить ошибку, которой раньше не было в списке метода."),
		Trigger:     text("An error is added to the `errors` of a method.", "В `errors` метода добавлена ошибка."),
		Example: Example{
			Context: text("Method `get`.", "Метод `get`."),
			Before:  `{"errors": ["demo.error.invalid-params"]}`,
			After:   `{"errors": ["demo.error.invalid-params", "demo.error.failure"]}`,
		},
		Resolution: text("Check that callers handle unlisted errors generically.", "Проверьте, что вызывающие обрабатывают ошибки не из списка общим образом."),
	},
	{
		ID: RuleRequirementChanged, Severity: Warning,
		Title:       text("requirement text changed", "текст требования изменён"),
		Description: text("The words of a normative requirement changed; implementations may no longer match it.", "Изменилась формулировка нормативного требования; реализации могут ему больше не соответствовать."),
		Trigger:     text("The `requirement` of a rule, method, notification, event, error, error kind or field entry changes in either language.", "Изменилось `requirement` правила, метода, уведомления, события, ошибки, вида ошибки или поля-записи на любом языке."),
		Example: Example{
			Context: text("Rule `demo.wire.frames`.", "Правило `demo.wire.frames`."),
			Before:  `{"requirement": {"en": "Frames end with LF."}}`,
			After:   `{"requirement": {"en": "Frames end with CRLF."}}`,
		},
		Resolution: text("Review the implementations named in the entry's `source` and the tests that prove it.", "Просмотрите реализации из `source` записи и тесты, которые её доказывают."),
	},
	{
		ID: RuleTranslationStale, Severity: Warning,
		Title:       text("translation stale", "перевод устарел"),
		Description: text("The English text changed and the Russian one did not, so the two languages now say different things.", "Английский текст изменился, а русский нет, и теперь языки говорят разное."),
		Trigger:     text("Any human-facing text whose `en` changed while its `ru` stayed the same.", "Любой текст для людей, у которого изменился `en`, а `ru` остался прежним."),
		Example: Example{
			Context: text("The title of method `get`.", "Заголовок метода `get`."),
			Before:  `{"en": "Get things", "ru": "Получить"}`,
			After:   `{"en": "Get items", "ru": "Получить"}`,
		},
		Resolution: text("Update the Russian text in the same change.", "Обновите русский текст в том же изменении."),
	},
	{
		ID: RuleGoNameChanged, Severity: Warning,
		Title:       text("Go name changed", "имя в Go изменено"),
		Description: text("The wire is unchanged, but Go code that imports the generated package no longer compiles.", "Провод не изменился, но код на Go, импортирующий сгенерированный пакет, больше не компилируется."),
		Trigger:     text("The Go name of a type, field, constant, method, notification, event, error, error kind, capability, enum value or variant changes, or the domain's `package` changes.", "Изменилось имя в Go у типа, поля, константы, метода, уведомления, события, ошибки, вида ошибки, возможности, значения перечисления или варианта, либо изменился `package` домена."),
		Example: Example{
			Context: text("Limit `demo.limit.items`.", "Предел `demo.limit.items`."),
			Before:  `{"symbol": "MaxItems"}`,
			After:   `{"symbol": "ItemLimit"}`,
		},
		Resolution: text("Update the Go code that uses the old name in the same change.", "Обновите код на Go, использующий старое имя, в том же изменении."),
	},
	// ---- additive ----
	{
		ID: RuleEntryAdded, Severity: Additive,
		Title:       text("entry added", "запись добавлена"),
		Description: text("Something new that peers may use and nobody has to understand.", "Появилось новое, чем участники могут пользоваться и что никому не обязательно понимать."),
		Trigger:     text("A method or notification that clients send, a type, constant, capability or rule is added (new messages the server sends are reported as server-message-added).", "Добавлены метод или уведомление, отправляемые клиентом, тип, константа, возможность или правило (новые сообщения сервера показываются как server-message-added)."),
		Example: Example{
			Context: text("A new client method.", "Новый метод клиента."),
			After:   `{"id": "demo.method.list", "method": "list", "params": "ListParams", "result": "ListResult"}`,
		},
		Resolution: text("Nothing to do.", "Ничего делать не нужно."),
	},
	{
		ID: RuleFieldAdded, Severity: Additive,
		Title:       text("field added", "поле добавлено"),
		Description: text("Clients may send a new optional member, or receive one they may ignore.", "Клиенты могут отправить новое необязательное поле или получить поле, которое можно игнорировать."),
		Trigger:     text("An optional field is added, or a required field is added to a type only the server sends, and the baseline type does not reject unknown members.", "Добавлено необязательное поле или обязательное поле в тип, который отправляет только сервер, и тип в базовой версии не отвергает неизвестные поля."),
		Example: Example{
			Context: text("Field `cursor` added to `GetParams`.", "Поле `cursor` добавлено в `GetParams`."),
			After:   `{"name": "cursor", "type": "string", "required": false}`,
		},
		Resolution: text("Nothing to do.", "Ничего делать не нужно."),
	},
	{
		ID: RuleCompatibleChange, Severity: Additive,
		Title:       text("compatible change", "совместимое изменение"),
		Description: text("A value was narrowed on the side that sends it or widened on the side that receives it: every existing peer still works.", "Значение сужено со стороны отправителя или расширено со стороны получателя: все существующие участники продолжают работать."),
		Trigger:     text("A constraint, requiredness, nullability, enum, union, alternatives, `additionalFields` or `exactlyOneOf` change in the direction its receivers tolerate: for example a bound relaxed or a value added on a client-sent type, or a bound tightened on a server-sent one; or an error removed from a method's list.", "Изменение ограничения, обязательности, допустимости null, перечисления, объединения, альтернатив, `additionalFields` или `exactlyOneOf` в сторону, которую получатели выдерживают: например, ослабленная граница или добавленное значение у типа, отправляемого клиентом, или ужесточённая граница у типа, отправляемого сервером; либо ошибка, убранная из списка метода."),
		Example: Example{
			Context: text("Field `name` of `GetParams` (sent by clients).", "Поле `name` типа `GetParams` (отправляет клиент)."),
			Before:  `{"maxLength": 8}`,
			After:   `{"maxLength": 16}`,
		},
		Resolution: text("Nothing to do.", "Ничего делать не нужно."),
	},
	{
		ID: RuleLimitRaised, Severity: Additive,
		Title:       text("limit raised", "предел увеличен"),
		Description: text("Runtimes accept more than before.", "Среды выполнения принимают больше, чем раньше."),
		Trigger:     text("The value of a `limit` constant is raised.", "Значение константы вида `limit` увеличено."),
		Example: Example{
			Context: text("Limit `demo.limit.frame-bytes`.", "Предел `demo.limit.frame-bytes`."),
			Before:  `{"value": 1024}`,
			After:   `{"value": 2048}`,
		},
		Resolution: text("Nothing to do; check the memory bounds of the runtimes.", "Ничего делать не нужно; проверьте ограничения памяти сред выполнения."),
	},
	{
		ID: RuleCapabilityGateRemoved, Severity: Additive,
		Title:       text("capability gate removed", "условие возможности снято"),
		Description: text("What needed a negotiated capability is now available to everyone.", "То, что требовало договорённости о возможности, теперь доступно всем."),
		Trigger:     text("A `capability` gate or a capability's `optIn` flag is removed.", "Снято условие `capability` или флаг `optIn` возможности."),
		Example: Example{
			Context: text("Field `tags` of `GetParams`.", "Поле `tags` типа `GetParams`."),
			Before:  `{"name": "tags", "capability": "tags"}`,
			After:   `{"name": "tags"}`,
		},
		Resolution: text("Nothing to do.", "Ничего делать не нужно."),
	},
	// ---- policy ----
	{
		ID: RuleProfileEventAdded, Severity: Additive,
		Title:       text("event added to a profile", "событие добавлено в профиль"),
		Description: text("The profile accepts records it used to reject.", "Профиль принимает записи, которые раньше отвергал."),
		Trigger:     text("An event id is added to a profile's `events`.", "Идентификатор события добавлен в список `events` профиля."),
		Example: Example{
			Context: text("Profile `strict` starts accepting `changed`.", "Профиль `strict` начинает принимать `changed`."),
			Before:  `{"id": "demo.profile.strict", "events": []}`,
			After:   `{"id": "demo.profile.strict", "events": ["demo.event.changed"]}`,
		},
		Resolution: text("Nothing to do.", "Ничего делать не нужно."),
	},
	{
		ID: RuleProfileLimitRaised, Severity: Additive,
		Title:       text("limit removed from a profile", "предел убран из профиля"),
		Description: text("The profile no longer bounds input by the limit: its limit was raised to none.", "Профиль больше не ограничивает данные этим пределом: предел поднят до отсутствующего."),
		Trigger:     text("A limit constant is dropped from a profile's `constants`.", "Константа-предел убрана из списка `constants` профиля."),
		Example: Example{
			Context: text("Profile `strict` stops being bounded by `demo.limit.items`.", "Профиль `strict` перестаёт ограничиваться `demo.limit.items`."),
			Before:  `{"id": "demo.profile.strict", "constants": ["demo.limit.items"]}`,
			After:   `{"id": "demo.profile.strict", "constants": []}`,
		},
		Resolution: text("Nothing to do.", "Ничего делать не нужно."),
	},
	{
		ID: RuleProfileRuleRemoved, Severity: Additive,
		Title:       text("rule removed from a profile", "правило убрано из профиля"),
		Description: text("The profile accepts records that the rule used to reject.", "Профиль принимает записи, которые правило раньше отвергало."),
		Trigger:     text("A rule id is dropped from a profile's `rules`.", "Идентификатор правила убран из списка `rules` профиля."),
		Example: Example{
			Context: text("Profile `strict` stops enforcing `demo.wire.frames`.", "Профиль `strict` перестаёт соблюдать `demo.wire.frames`."),
			Before:  `{"id": "demo.profile.strict", "rules": ["demo.wire.frames"]}`,
			After:   `{"id": "demo.profile.strict", "rules": []}`,
		},
		Resolution: text("Nothing to do.", "Ничего делать не нужно."),
	},
	{
		ID: RuleStabilityChanged, Severity: Policy,
		Title:       text("stability changed", "стабильность изменена"),
		Description: text("A promise about the entry changed without being withdrawn: promoted, deprecated or restored.", "Обещание о записи изменилось, но не отозвано: повышена, объявлена устаревшей или восстановлена."),
		Trigger:     text("Any stability change that is not a withdrawal, such as `experimental` → `stable` or `stable` → `deprecated`.", "Любое изменение стабильности, кроме отзыва, например `experimental` → `stable` или `stable` → `deprecated`."),
		Example: Example{
			Context: text("Method `get`.", "Метод `get`."),
			Before:  `{"stability": "experimental"}`,
			After:   `{"stability": "stable"}`,
		},
		Resolution: text("Confirm the promotion or deprecation is intended and announced.", "Убедитесь, что повышение или объявление устаревшим задумано и объявлено."),
	},
	{
		ID: RuleSinceChanged, Severity: Policy,
		Title:       text("since changed", "since изменён"),
		Description: text("The version history of an entry was rewritten; peers negotiating versions may disagree about when it exists.", "История версий записи переписана; участники, договаривающиеся о версии, могут разойтись в том, когда она существует."),
		Trigger:     text("The `since` of an entry, type, field, value or variant changes (changes it merely inherits from its container are reported once, on the container).", "Изменился `since` записи, типа, поля, значения или варианта (унаследованные от контейнера изменения показываются один раз, у контейнера)."),
		Example: Example{
			Context: text("Field `mode` of `GetParams`.", "Поле `mode` типа `GetParams`."),
			Before:  `{"since": "1.1"}`,
			After:   `{"since": "1.2"}`,
		},
		Resolution: text("Do not rewrite released history; correct `since` only when it was wrong from the start.", "Не переписывайте выпущенную историю; исправляйте `since`, только если он был ошибочен изначально."),
	},
	{
		ID: RuleDomainVersionChanged, Severity: Policy,
		Title:       text("domain version changed", "версия домена изменена"),
		Description: text("The contract announces a new version.", "Контракт объявляет новую версию."),
		Trigger:     text("`domain.version` changes.", "Изменилось `domain.version`."),
		Example: Example{
			Context: text("The demo domain.", "Домен demo."),
			Before:  `{"version": "1.2"}`,
			After:   `{"version": "1.3"}`,
		},
		Resolution: text("Check that the new entries carry the new version in `since`.", "Проверьте, что у новых записей в `since` указана новая версия."),
	},
	// ---- documentation ----
	{
		ID: RuleTextChanged, Severity: Documentation,
		Title:       text("text changed", "текст изменён"),
		Description: text("A title, description, rationale, message or other human-facing text changed in both languages, or only in Russian.", "Заголовок, описание, обоснование, сообщение или другой текст для людей изменён на обоих языках или только на русском."),
		Trigger:     text("Any human-facing text other than a requirement changes, unless only its English side changed (that is translation-stale).", "Изменился любой текст для людей, кроме требования, если только не изменилась лишь его английская часть (это translation-stale)."),
		Example: Example{
			Context: text("The description of field `name`.", "Описание поля `name`."),
			Before:  `{"en": "A name.", "ru": "Имя."}`,
			After:   `{"en": "The item name.", "ru": "Имя элемента."}`,
		},
		Resolution: text("Nothing to do beyond review.", "Достаточно просмотреть изменение."),
	},
	{
		ID: RuleExamplesChanged, Severity: Documentation,
		Title:       text("examples changed", "примеры изменены"),
		Description: text("The executable examples of a method or type changed; the reference pages and conformance tests show the new ones.", "Изменились исполняемые примеры метода или типа; справочные страницы и тесты соответствия показывают новые."),
		Trigger:     text("The valid or invalid examples of a method's params or result, or of a type, change.", "Изменились допустимые или недопустимые примеры параметров или результата метода либо типа."),
		Example: Example{
			Context: text("Valid params of `get`.", "Допустимые параметры `get`."),
			Before:  `{"valid": [{"name": "a"}]}`,
			After:   `{"valid": [{"name": "abc"}]}`,
		},
		Resolution: text("Nothing to do beyond review.", "Достаточно просмотреть изменение."),
	},
}
