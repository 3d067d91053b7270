// Package designer reads 1C Designer XML exports: the descriptors of a
// configuration, extension, external data processor or external report,
// their nested objects, modules and predefined items. It never writes; it
// turns every recoverable oddity of a file into a Diagnostic with the byte
// range it came from, and everything it cannot read into an error that
// names the file and the reason.
//
// The package knows the metadata kinds and the Configurator's tree schema
// (which collections an owner shows, in which order, which module roles it
// has and where their files lie). It knows nothing of the IDE protocol.
package designer

import "sort"

// Kind is a machine metadata kind such as "catalog" or "tabular-section".
type Kind string

// KindInfo describes one metadata kind.
type KindInfo struct {
	Kind Kind
	// Tags are the Designer XML element names of the kind; the first is the
	// canonical one. External processors and reports share the kinds of
	// their configuration counterparts.
	Tags []string
	// Dir is the folder that holds descriptors of this kind under their
	// owner ("Catalogs", "Forms"); empty for kinds that are always inline.
	Dir string
	// Collections are the child kinds the Configurator shows under an
	// object of this kind, in its order.
	Collections []Kind
	// Direct children are shown right under the owner, with no group.
	Direct bool
	// Modules are the module roles an object of this kind may have, in the
	// order of the modules group.
	Modules []ModuleRole
	// Plural is the label of the group of objects of this kind; Singular
	// names one object of it (the category of a reference).
	Plural, Singular Caption
	// Unsupported kinds are known by name but their children are not read:
	// they go to the unsupported group.
	Unsupported bool
}

// Caption is a text in both languages of the IDE API.
type Caption struct{ RU, EN string }

// ModuleRole is a machine module role such as "object" or "manager".
type ModuleRole string

// Module roles and the files that hold them.
const (
	RoleModule              ModuleRole = "module"
	RoleObject              ModuleRole = "object"
	RoleManager             ModuleRole = "manager"
	RoleRecordSet           ModuleRole = "record-set"
	RoleValueManager        ModuleRole = "value-manager"
	RoleCommand             ModuleRole = "command"
	RoleManagedApplication  ModuleRole = "managed-application"
	RoleOrdinaryApplication ModuleRole = "ordinary-application"
	RoleSession             ModuleRole = "session"
	RoleExternalConnection  ModuleRole = "external-connection"
)

// moduleFiles names the BSL file of each role inside the owner's Ext
// folder. A form's module lies one level deeper, in Ext/Form.
var moduleFiles = map[ModuleRole]string{
	RoleModule:              "Module.bsl",
	RoleObject:              "ObjectModule.bsl",
	RoleManager:             "ManagerModule.bsl",
	RoleRecordSet:           "RecordSetModule.bsl",
	RoleValueManager:        "ValueManagerModule.bsl",
	RoleCommand:             "CommandModule.bsl",
	RoleManagedApplication:  "ManagedApplicationModule.bsl",
	RoleOrdinaryApplication: "OrdinaryApplicationModule.bsl",
	RoleSession:             "SessionModule.bsl",
	RoleExternalConnection:  "ExternalConnectionModule.bsl",
}

// ModuleLabels are the labels of module nodes.
var ModuleLabels = map[ModuleRole]Caption{
	RoleModule:              {"Модуль", "Module"},
	RoleObject:              {"Модуль объекта", "Object module"},
	RoleManager:             {"Модуль менеджера", "Manager module"},
	RoleRecordSet:           {"Модуль набора записей", "Record set module"},
	RoleValueManager:        {"Модуль менеджера значения", "Value manager module"},
	RoleCommand:             {"Модуль команды", "Command module"},
	RoleManagedApplication:  {"Модуль управляемого приложения", "Managed application module"},
	RoleOrdinaryApplication: {"Модуль обычного приложения", "Ordinary application module"},
	RoleSession:             {"Модуль сеанса", "Session module"},
	RoleExternalConnection:  {"Модуль внешнего соединения", "External connection module"},
}

// Labels of the virtual groups that are not collections of one kind.
var (
	ModulesLabel     = Caption{"Модули", "Modules"}
	CommonLabel      = Caption{"Общие", "Common"}
	UnsupportedLabel = Caption{"Неподдержанные элементы", "Unsupported items"}
)

// Kinds of the package, named where the code refers to them.
const (
	KindConfiguration  Kind = "configuration"
	KindDataProcessor  Kind = "data-processor"
	KindReport         Kind = "report"
	KindSubsystem      Kind = "subsystem"
	KindDocument       Kind = "document"
	KindForm           Kind = "form"
	KindCommand        Kind = "command"
	KindTemplate       Kind = "template"
	KindRecalculation  Kind = "recalculation"
	KindPredefinedItem Kind = "predefined-item"
	KindCommonPicture  Kind = "common-picture"
	KindCommonForm     Kind = "common-form"
	KindCommonCommand  Kind = "common-command"
	KindTabularSection Kind = "tabular-section"
	KindExternalSource Kind = "external-data-source"
)

var (
	objectLike   = []Kind{"attribute", "tabular-section", "form", "command", "template"}
	registerLike = []Kind{"dimension", "resource", "attribute", "form", "command", "template"}
	objMgr       = []ModuleRole{RoleObject, RoleManager}
)

func k(kind Kind, tags []string, dir string, ru, en string, coll []Kind, mods []ModuleRole) *KindInfo {
	return &KindInfo{Kind: kind, Tags: tags, Dir: dir, Plural: Caption{ru, en}, Collections: coll, Modules: mods}
}

func tags(t ...string) []string { return t }

// table lists every kind. Labels are the Configurator's section names.
var table = []*KindInfo{
	k(KindConfiguration, tags("Configuration"), "", "Конфигурация", "Configuration", nil,
		[]ModuleRole{RoleManagedApplication, RoleSession, RoleExternalConnection, RoleOrdinaryApplication}),
	k(KindDataProcessor, tags("DataProcessor", "ExternalDataProcessor"), "DataProcessors", "Обработки", "Data processors", objectLike, objMgr),
	k(KindReport, tags("Report", "ExternalReport"), "Reports", "Отчеты", "Reports", objectLike, objMgr),
	k("accounting-register", tags("AccountingRegister"), "AccountingRegisters", "Регистры бухгалтерии", "Accounting registers", registerLike, []ModuleRole{RoleManager, RoleRecordSet}),
	k("accumulation-register", tags("AccumulationRegister"), "AccumulationRegisters", "Регистры накопления", "Accumulation registers", registerLike, []ModuleRole{RoleManager, RoleRecordSet}),
	k("bot", tags("Bot"), "Bots", "Боты", "Bots", nil, []ModuleRole{RoleModule}),
	k("business-process", tags("BusinessProcess"), "BusinessProcesses", "Бизнес-процессы", "Business processes", objectLike, objMgr),
	k("calculation-register", tags("CalculationRegister"), "CalculationRegisters", "Регистры расчета", "Calculation registers",
		[]Kind{"dimension", "resource", "attribute", "recalculation", "form", "command", "template"}, []ModuleRole{RoleManager, RoleRecordSet}),
	k("catalog", tags("Catalog"), "Catalogs", "Справочники", "Catalogs", append([]Kind{KindPredefinedItem}, objectLike...), objMgr),
	k("chart-of-accounts", tags("ChartOfAccounts"), "ChartsOfAccounts", "Планы счетов", "Charts of accounts",
		[]Kind{KindPredefinedItem, "attribute", "accounting-flag", "ext-dimension-accounting-flag", "tabular-section", "form", "command", "template"}, objMgr),
	k("chart-of-calculation-types", tags("ChartOfCalculationTypes"), "ChartsOfCalculationTypes", "Планы видов расчета", "Charts of calculation types", append([]Kind{KindPredefinedItem}, objectLike...), objMgr),
	k("chart-of-characteristic-types", tags("ChartOfCharacteristicTypes"), "ChartsOfCharacteristicTypes", "Планы видов характеристик", "Charts of characteristic types", append([]Kind{KindPredefinedItem}, objectLike...), objMgr),
	k("command-group", tags("CommandGroup"), "CommandGroups", "Группы команд", "Command groups", nil, nil),
	k("common-attribute", tags("CommonAttribute"), "CommonAttributes", "Общие реквизиты", "Common attributes", nil, nil),
	k(KindCommonCommand, tags("CommonCommand"), "CommonCommands", "Общие команды", "Common commands", nil, []ModuleRole{RoleCommand}),
	k(KindCommonForm, tags("CommonForm"), "CommonForms", "Общие формы", "Common forms", nil, []ModuleRole{RoleModule}),
	k("common-module", tags("CommonModule"), "CommonModules", "Общие модули", "Common modules", nil, []ModuleRole{RoleModule}),
	k(KindCommonPicture, tags("CommonPicture"), "CommonPictures", "Общие картинки", "Common pictures", nil, nil),
	k("common-template", tags("CommonTemplate"), "CommonTemplates", "Общие макеты", "Common templates", nil, nil),
	k("constant", tags("Constant"), "Constants", "Константы", "Constants", nil, []ModuleRole{RoleValueManager, RoleManager}),
	k("defined-type", tags("DefinedType"), "DefinedTypes", "Определяемые типы", "Defined types", nil, nil),
	k(KindDocument, tags("Document"), "Documents", "Документы", "Documents", objectLike, objMgr),
	k("document-journal", tags("DocumentJournal"), "DocumentJournals", "Журналы документов", "Document journals", []Kind{"column", "form", "command", "template"}, []ModuleRole{RoleManager}),
	k("document-numerator", tags("DocumentNumerator"), "DocumentNumerators", "Нумераторы", "Document numerators", nil, nil),
	k("enum", tags("Enum"), "Enums", "Перечисления", "Enums", []Kind{"enum-value", "form", "command", "template"}, []ModuleRole{RoleManager}),
	k("event-subscription", tags("EventSubscription"), "EventSubscriptions", "Подписки на события", "Event subscriptions", nil, nil),
	k("exchange-plan", tags("ExchangePlan"), "ExchangePlans", "Планы обмена", "Exchange plans", objectLike, objMgr),
	k(KindExternalSource, tags("ExternalDataSource"), "ExternalDataSources", "Внешние источники данных", "External data sources", nil, []ModuleRole{RoleManager}),
	k("filter-criterion", tags("FilterCriterion"), "FilterCriteria", "Критерии отбора", "Filter criteria", []Kind{"form", "command"}, []ModuleRole{RoleManager}),
	k("functional-option", tags("FunctionalOption"), "FunctionalOptions", "Функциональные опции", "Functional options", nil, nil),
	k("functional-option-parameter", tags("FunctionalOptionsParameter"), "FunctionalOptionsParameters", "Параметры функциональных опций", "Functional option parameters", nil, nil),
	k("http-service", tags("HTTPService"), "HTTPServices", "HTTP-сервисы", "HTTP services", []Kind{"url-template"}, []ModuleRole{RoleModule}),
	k("information-register", tags("InformationRegister"), "InformationRegisters", "Регистры сведений", "Information registers", registerLike, []ModuleRole{RoleManager, RoleRecordSet}),
	k("integration-service", tags("IntegrationService"), "IntegrationServices", "Сервисы интеграции", "Integration services", []Kind{"integration-service-channel"}, []ModuleRole{RoleModule}),
	k("language", tags("Language"), "Languages", "Языки", "Languages", nil, nil),
	k("role", tags("Role"), "Roles", "Роли", "Roles", nil, nil),
	k("scheduled-job", tags("ScheduledJob"), "ScheduledJobs", "Регламентные задания", "Scheduled jobs", nil, nil),
	k("sequence", tags("Sequence"), "Sequences", "Последовательности", "Sequences", []Kind{"dimension"}, []ModuleRole{RoleRecordSet}),
	k("session-parameter", tags("SessionParameter"), "SessionParameters", "Параметры сеанса", "Session parameters", nil, nil),
	k("settings-storage", tags("SettingsStorage"), "SettingsStorages", "Хранилища настроек", "Settings storages", []Kind{"form"}, []ModuleRole{RoleManager}),
	k("style", tags("Style"), "Styles", "Стили", "Styles", nil, nil),
	k("style-item", tags("StyleItem"), "StyleItems", "Элементы стиля", "Style items", nil, nil),
	k(KindSubsystem, tags("Subsystem"), "Subsystems", "Подсистемы", "Subsystems", []Kind{KindSubsystem}, nil),
	k("task", tags("Task"), "Tasks", "Задачи", "Tasks", append([]Kind{"addressing-attribute"}, objectLike...), objMgr),
	k("web-service", tags("WebService"), "WebServices", "Web-сервисы", "Web services", []Kind{"operation"}, []ModuleRole{RoleModule}),
	k("web-socket-client", tags("WebSocketClient"), "WebSocketClients", "WebSocket-клиенты", "WebSocket clients", nil, []ModuleRole{RoleModule}),
	k("ws-reference", tags("WSReference"), "WSReferences", "WS-ссылки", "WS references", nil, nil),
	k("xdto-package", tags("XDTOPackage"), "XDTOPackages", "XDTO-пакеты", "XDTO packages", nil, nil),
	k(KindForm, tags("Form"), "Forms", "Формы", "Forms", nil, []ModuleRole{RoleModule}),
	k(KindTemplate, tags("Template"), "Templates", "Макеты", "Templates", nil, nil),
	k(KindCommand, tags("Command"), "Commands", "Команды", "Commands", nil, []ModuleRole{RoleCommand}),
	k("attribute", tags("Attribute"), "", "Реквизиты", "Attributes", nil, nil),
	k("addressing-attribute", tags("AddressingAttribute"), "", "Реквизиты адресации", "Addressing attributes", nil, nil),
	k(KindTabularSection, tags("TabularSection"), "", "Табличные части", "Tabular sections", []Kind{"attribute"}, nil),
	k("dimension", tags("Dimension"), "", "Измерения", "Dimensions", nil, nil),
	k("resource", tags("Resource"), "", "Ресурсы", "Resources", nil, nil),
	k("requisite", tags("Requisite"), "", "Реквизиты", "Requisites", nil, nil),
	k("enum-value", tags("EnumValue"), "", "Значения", "Values", nil, nil),
	k("accounting-flag", tags("AccountingFlag"), "", "Признаки учета", "Accounting flags", nil, nil),
	k("ext-dimension-accounting-flag", tags("ExtDimensionAccountingFlag"), "", "Признаки учета субконто", "Extra dimension accounting flags", nil, nil),
	k(KindRecalculation, tags("Recalculation"), "Recalculations", "Перерасчеты", "Recalculations", []Kind{"dimension"}, []ModuleRole{RoleRecordSet}),
	k("column", tags("Column"), "", "Графы", "Columns", nil, nil),
	k("url-template", tags("URLTemplate"), "", "Шаблоны URL", "URL templates", []Kind{"method"}, nil),
	k("method", tags("Method"), "", "Методы", "Methods", nil, nil),
	k("operation", tags("Operation"), "", "Операции", "Operations", []Kind{"parameter"}, nil),
	k("parameter", tags("Parameter"), "", "Параметры", "Parameters", nil, nil),
	k("integration-service-channel", tags("IntegrationServiceChannel"), "", "Каналы", "Channels", nil, nil),
	k(KindPredefinedItem, tags("Item"), "", "Предопределенные данные", "Predefined data", []Kind{KindPredefinedItem}, nil),
}

// singulars name one object of each kind.
var singulars = map[Kind][2]string{
	"configuration": {"Конфигурация", "Configuration"}, "data-processor": {"Обработка", "Data processor"},
	"report": {"Отчет", "Report"}, "accounting-register": {"Регистр бухгалтерии", "Accounting register"},
	"accumulation-register": {"Регистр накопления", "Accumulation register"}, "bot": {"Бот", "Bot"},
	"business-process": {"Бизнес-процесс", "Business process"}, "calculation-register": {"Регистр расчета", "Calculation register"},
	"catalog": {"Справочник", "Catalog"}, "chart-of-accounts": {"План счетов", "Chart of accounts"},
	"chart-of-calculation-types":    {"План видов расчета", "Chart of calculation types"},
	"chart-of-characteristic-types": {"План видов характеристик", "Chart of characteristic types"},
	"command-group":                 {"Группа команд", "Command group"}, "common-attribute": {"Общий реквизит", "Common attribute"},
	"common-command": {"Общая команда", "Common command"}, "common-form": {"Общая форма", "Common form"},
	"common-module": {"Общий модуль", "Common module"}, "common-picture": {"Общая картинка", "Common picture"},
	"common-template": {"Общий макет", "Common template"}, "constant": {"Константа", "Constant"},
	"defined-type": {"Определяемый тип", "Defined type"}, "document": {"Документ", "Document"},
	"document-journal": {"Журнал документов", "Document journal"}, "document-numerator": {"Нумератор", "Document numerator"},
	"enum": {"Перечисление", "Enum"}, "event-subscription": {"Подписка на событие", "Event subscription"},
	"exchange-plan": {"План обмена", "Exchange plan"}, "external-data-source": {"Внешний источник данных", "External data source"},
	"filter-criterion": {"Критерий отбора", "Filter criterion"}, "functional-option": {"Функциональная опция", "Functional option"},
	"functional-option-parameter": {"Параметр функциональных опций", "Functional option parameter"},
	"http-service":                {"HTTP-сервис", "HTTP service"}, "information-register": {"Регистр сведений", "Information register"},
	"integration-service": {"Сервис интеграции", "Integration service"}, "language": {"Язык", "Language"},
	"role": {"Роль", "Role"}, "scheduled-job": {"Регламентное задание", "Scheduled job"}, "sequence": {"Последовательность", "Sequence"},
	"session-parameter": {"Параметр сеанса", "Session parameter"}, "settings-storage": {"Хранилище настроек", "Settings storage"},
	"style": {"Стиль", "Style"}, "style-item": {"Элемент стиля", "Style item"}, "subsystem": {"Подсистема", "Subsystem"},
	"task": {"Задача", "Task"}, "web-service": {"Web-сервис", "Web service"}, "web-socket-client": {"WebSocket-клиент", "WebSocket client"},
	"ws-reference": {"WS-ссылка", "WS reference"}, "xdto-package": {"XDTO-пакет", "XDTO package"},
	"form": {"Форма", "Form"}, "template": {"Макет", "Template"}, "command": {"Команда", "Command"},
	"attribute": {"Реквизит", "Attribute"}, "addressing-attribute": {"Реквизит адресации", "Addressing attribute"},
	"tabular-section": {"Табличная часть", "Tabular section"}, "dimension": {"Измерение", "Dimension"},
	"resource": {"Ресурс", "Resource"}, "enum-value": {"Значение перечисления", "Enum value"},
	"accounting-flag": {"Признак учета", "Accounting flag"}, "ext-dimension-accounting-flag": {"Признак учета субконто", "Extra dimension accounting flag"},
	"recalculation": {"Перерасчет", "Recalculation"}, "column": {"Графа", "Column"}, "url-template": {"Шаблон URL", "URL template"},
	"method": {"Метод", "Method"}, "operation": {"Операция", "Operation"}, "parameter": {"Параметр", "Parameter"},
	"integration-service-channel": {"Канал сервиса интеграции", "Integration service channel"},
	"predefined-item":             {"Предопределенный элемент", "Predefined item"},
}

var (
	byKind      = map[Kind]*KindInfo{}
	byTag       = map[string]*KindInfo{}
	byRootDir   = map[string]*KindInfo{}
	placementOf = map[Kind]Placement{}
)

func init() {
	direct := map[Kind]bool{"http-service": true, "integration-service": true, "sequence": true, KindSubsystem: true,
		"web-service": true, KindTabularSection: true, KindRecalculation: true, "url-template": true, "operation": true, KindPredefinedItem: true}
	unsupported := map[Kind]bool{KindExternalSource: true}
	for _, info := range table {
		info.Direct = direct[info.Kind]
		info.Unsupported = unsupported[info.Kind]
		if c, ok := singulars[info.Kind]; ok {
			info.Singular = Caption{c[0], c[1]}
		} else {
			info.Singular = info.Plural
		}
		byKind[info.Kind] = info
		if info.Kind == KindPredefinedItem {
			continue // "Item" is a tag only inside Predefined.xml
		}
		for _, t := range info.Tags {
			byTag[t] = info
		}
	}
	for _, sec := range RootOrder {
		if sec.Kind == "" {
			for _, k := range sec.Common {
				placementOf[k] = Placement{InCommon: true}
			}
			continue
		}
		placementOf[sec.Kind] = Placement{}
		for _, k := range sec.Nested {
			placementOf[k] = Placement{Under: sec.Kind}
		}
	}
	for k := range placementOf {
		byRootDir[byKind[k].Dir] = byKind[k]
	}
}

// Placement says where a kind's group sits in a configuration's root.
type Placement struct {
	InCommon bool // inside the Common group
	Under    Kind // inside the section of this kind (numerators and sequences in Documents)
}

// RootPlacement returns where the group of kind sits in a configuration's
// root, and whether the kind belongs there at all.
func RootPlacement(kind Kind) (Placement, bool) { pl, ok := placementOf[kind]; return pl, ok }

// KindOfRootDir returns the top-level kind whose descriptors a
// configuration keeps in the folder dir ("Catalogs").
func KindOfRootDir(dir string) (*KindInfo, bool) { info, ok := byRootDir[dir]; return info, ok }

// Lookup returns the kind's description.
func Lookup(kind Kind) (*KindInfo, bool) { info, ok := byKind[kind]; return info, ok }

// KindOfTag returns the kind of a ChildObjects or root element name.
func KindOfTag(tag string) (*KindInfo, bool) { info, ok := byTag[tag]; return info, ok }

// AllKinds returns every kind, sorted.
func AllKinds() []Kind {
	out := make([]Kind, 0, len(byKind))
	for kind := range byKind {
		out = append(out, kind)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// ModuleFile returns the BSL file name of a module role.
func ModuleFile(role ModuleRole) string { return moduleFiles[role] }

// RootSection is one entry of a configuration's root: either a group of
// one kind, or the Common group with its own kinds.
type RootSection struct {
	Kind   Kind   // the kind of a plain section; "" for Common
	Common []Kind // the kinds inside Common, in order
	// Nested kinds shown inside this section before its objects (numerators
	// and sequences inside Documents).
	Nested []Kind
}

// RootOrder is the Configurator's order of a configuration's root.
var RootOrder = []RootSection{
	{Common: []Kind{KindSubsystem, "common-module", "session-parameter", "role", "common-attribute", "exchange-plan",
		"filter-criterion", "event-subscription", "scheduled-job", "bot", "functional-option", "functional-option-parameter",
		"defined-type", "settings-storage", KindCommonCommand, "command-group", KindCommonForm, "common-template",
		KindCommonPicture, "xdto-package", "web-service", "http-service", "ws-reference", "web-socket-client",
		"integration-service", "style-item", "style", "language"}},
	{Kind: "constant"},
	{Kind: "catalog"},
	{Kind: KindDocument, Nested: []Kind{"document-numerator", "sequence"}},
	{Kind: "document-journal"},
	{Kind: "enum"},
	{Kind: KindReport},
	{Kind: KindDataProcessor},
	{Kind: "chart-of-characteristic-types"},
	{Kind: "chart-of-accounts"},
	{Kind: "chart-of-calculation-types"},
	{Kind: "information-register"},
	{Kind: "accumulation-register"},
	{Kind: "accounting-register"},
	{Kind: "calculation-register"},
	{Kind: "business-process"},
	{Kind: "task"},
	{Kind: KindExternalSource},
}
