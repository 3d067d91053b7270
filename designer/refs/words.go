// Package refs finds the places in a project's sources that name a
// top-level metadata object: in Designer XML (type references such as
// cfg:CatalogRef.X, full names such as Catalog.X in subsystem contents,
// rights, functional options, event subscriptions and command
// interfaces, query texts of forms, schemas and access restrictions, the
// object's own Name and its line in Configuration.xml) and in BSL modules
// (managers such as Справочники.X, Метаданные.Справочники.X, the calls of
// a common module, type names in Тип("СправочникСсылка.X") and
// Новый ОписаниеТипов("...") strings, and query texts inside strings).
//
// Every place is either certain (a rename changes it) or uncertain: a
// name inside an ordinary string, a comment or a human text, a member of
// something that is not the metadata, a local name that hides a common
// module, an alias that makes a query ambiguous. Uncertain places are
// reported, never changed. What is neither (a method or attribute that
// happens to have the same name) is not a place at all.
package refs

import (
	"sort"

	"github.com/contractkit/contractkit/designer"
	"github.com/contractkit/contractkit/designer/bsl"
)

// kindWords are the words the platform names objects of one kind with:
// the class word of full names and queries (Catalog, Справочник), the
// collections of the global context and of Метаданные (Catalogs,
// Справочники; managers marks those that are also global managers), and
// extra words (Characteristic, БиблиотекаКартинок).
type kindWords struct {
	class    [2]string // English, Russian
	coll     [2]string // the collection in Метаданные (and the manager, when managers)
	managers bool
	extra    []string // further words that precede the name: type words of their own, managers
}

// words of every kind a rename supports. The type words (CatalogRef,
// СправочникСсылка...) are the class word followed by one of
// typeSuffixes.
var words = map[designer.Kind]kindWords{
	"catalog":                       {[2]string{"Catalog", "Справочник"}, [2]string{"Catalogs", "Справочники"}, true, nil},
	"document":                      {[2]string{"Document", "Документ"}, [2]string{"Documents", "Документы"}, true, nil},
	"enum":                          {[2]string{"Enum", "Перечисление"}, [2]string{"Enums", "Перечисления"}, true, nil},
	"common-module":                 {[2]string{"CommonModule", "ОбщийМодуль"}, [2]string{"CommonModules", "ОбщиеМодули"}, false, nil},
	"information-register":          {[2]string{"InformationRegister", "РегистрСведений"}, [2]string{"InformationRegisters", "РегистрыСведений"}, true, nil},
	"accumulation-register":         {[2]string{"AccumulationRegister", "РегистрНакопления"}, [2]string{"AccumulationRegisters", "РегистрыНакопления"}, true, nil},
	"accounting-register":           {[2]string{"AccountingRegister", "РегистрБухгалтерии"}, [2]string{"AccountingRegisters", "РегистрыБухгалтерии"}, true, nil},
	"calculation-register":          {[2]string{"CalculationRegister", "РегистрРасчета"}, [2]string{"CalculationRegisters", "РегистрыРасчета"}, true, nil},
	"chart-of-characteristic-types": {[2]string{"ChartOfCharacteristicTypes", "ПланВидовХарактеристик"}, [2]string{"ChartsOfCharacteristicTypes", "ПланыВидовХарактеристик"}, true, []string{"Characteristic", "Характеристика"}},
	"chart-of-accounts":             {[2]string{"ChartOfAccounts", "ПланСчетов"}, [2]string{"ChartsOfAccounts", "ПланыСчетов"}, true, nil},
	"chart-of-calculation-types":    {[2]string{"ChartOfCalculationTypes", "ПланВидовРасчета"}, [2]string{"ChartsOfCalculationTypes", "ПланыВидовРасчета"}, true, nil},
	"exchange-plan":                 {[2]string{"ExchangePlan", "ПланОбмена"}, [2]string{"ExchangePlans", "ПланыОбмена"}, true, nil},
	"business-process":              {[2]string{"BusinessProcess", "БизнесПроцесс"}, [2]string{"BusinessProcesses", "БизнесПроцессы"}, true, nil},
	"task":                          {[2]string{"Task", "Задача"}, [2]string{"Tasks", "Задачи"}, true, nil},
	"data-processor":                {[2]string{"DataProcessor", "Обработка"}, [2]string{"DataProcessors", "Обработки"}, true, nil},
	"report":                        {[2]string{"Report", "Отчет"}, [2]string{"Reports", "Отчеты"}, true, nil},
	"constant":                      {[2]string{"Constant", "Константа"}, [2]string{"Constants", "Константы"}, true, nil},
	"document-journal":              {[2]string{"DocumentJournal", "ЖурналДокументов"}, [2]string{"DocumentJournals", "ЖурналыДокументов"}, true, nil},
	"document-numerator":            {[2]string{"DocumentNumerator", "НумераторДокументов"}, [2]string{"DocumentNumerators", "НумераторыДокументов"}, false, nil},
	"sequence":                      {[2]string{"Sequence", "Последовательность"}, [2]string{"Sequences", "Последовательности"}, true, nil},
	"filter-criterion":              {[2]string{"FilterCriterion", "КритерийОтбора"}, [2]string{"FilterCriteria", "КритерииОтбора"}, true, nil},
	"settings-storage":              {[2]string{"SettingsStorage", "ХранилищеНастроек"}, [2]string{"SettingsStorages", "ХранилищаНастроек"}, true, nil},
	"session-parameter":             {[2]string{"SessionParameter", "ПараметрСеанса"}, [2]string{"SessionParameters", "ПараметрыСеанса"}, true, nil},
	"common-template":               {[2]string{"CommonTemplate", "ОбщийМакет"}, [2]string{"CommonTemplates", "ОбщиеМакеты"}, false, nil},
	"common-form":                   {[2]string{"CommonForm", "ОбщаяФорма"}, [2]string{"CommonForms", "ОбщиеФормы"}, false, nil},
	"common-command":                {[2]string{"CommonCommand", "ОбщаяКоманда"}, [2]string{"CommonCommands", "ОбщиеКоманды"}, false, nil},
	"common-attribute":              {[2]string{"CommonAttribute", "ОбщийРеквизит"}, [2]string{"CommonAttributes", "ОбщиеРеквизиты"}, false, nil},
	"common-picture":                {[2]string{"CommonPicture", "ОбщаяКартинка"}, [2]string{"CommonPictures", "ОбщиеКартинки"}, false, []string{"PictureLib", "БиблиотекаКартинок"}},
	"functional-option":             {[2]string{"FunctionalOption", "ФункциональнаяОпция"}, [2]string{"FunctionalOptions", "ФункциональныеОпции"}, false, nil},
	"functional-option-parameter":   {[2]string{"FunctionalOptionsParameter", "ПараметрФункциональныхОпций"}, [2]string{"FunctionalOptionsParameters", "ПараметрыФункциональныхОпций"}, false, nil},
	"role":                          {[2]string{"Role", "Роль"}, [2]string{"Roles", "Роли"}, false, nil},
	"subsystem":                     {[2]string{"Subsystem", "Подсистема"}, [2]string{"Subsystems", "Подсистемы"}, false, nil},
	"event-subscription":            {[2]string{"EventSubscription", "ПодпискаНаСобытие"}, [2]string{"EventSubscriptions", "ПодпискиНаСобытия"}, false, nil},
	"scheduled-job":                 {[2]string{"ScheduledJob", "РегламентноеЗадание"}, [2]string{"ScheduledJobs", "РегламентныеЗадания"}, false, nil},
	"defined-type":                  {[2]string{"DefinedType", "ОпределяемыйТип"}, [2]string{"DefinedTypes", "ОпределяемыеТипы"}, false, nil},
	"http-service":                  {[2]string{"HTTPService", "HTTPСервис"}, [2]string{"HTTPServices", "HTTPСервисы"}, false, nil},
	"web-service":                   {[2]string{"WebService", "WebСервис"}, [2]string{"WebServices", "WebСервисы"}, false, nil},
	"xdto-package":                  {[2]string{"XDTOPackage", "ПакетXDTO"}, [2]string{"XDTOPackages", "ПакетыXDTO"}, false, nil},
}

// typeSuffixes follow a class word to make the names of the platform's
// types of an object (CatalogRef, РегистрСведенийНаборЗаписей) and of its
// tabular sections.
var typeSuffixes = [2][]string{
	{"Ref", "Object", "Manager", "Selection", "List", "Record", "RecordSet", "RecordKey", "RecordManager", "ValueManager",
		"ValueKey", "TabularSection", "TabularSectionRow", "RoutePointRef", "ExtDimensionTypes"},
	{"Ссылка", "Объект", "Менеджер", "Выборка", "Список", "Запись", "НаборЗаписей", "КлючЗаписи", "МенеджерЗаписи",
		"МенеджерЗначения", "КлючЗначения", "ТабличнаяЧасть", "ТабличнаяЧастьСтрока", "ТочкаМаршрутаСсылка", "ВидыСубконто"},
}

// metadataWords name the global Метаданные.
var metadataWords = []string{"metadata", "метаданные"}

// typeFuncWords and typeDescWords name the function and the constructor
// whose first string argument is a list of type names: Тип("...") and
// Новый ОписаниеТипов("...").
var (
	typeFuncWords = []string{"type", "тип"}
	typeDescWords = []string{"typedescription", "описаниетипов"}
)

// Renamable reports whether a rename of a top-level object of the kind
// is supported.
func Renamable(kind designer.Kind) bool {
	_, ok := words[kind]
	return ok
}

// Target is a top-level object whose places are sought.
type Target struct {
	Kind designer.Kind
	Tag  string // its element in Configuration.xml (Catalog)
	Name string
	find finder // the name in any case, for the fast search

	types   map[string]bool // folded class, type and extra words
	classes map[string]bool // folded class words only
	coll    map[string]bool // folded collection words
	managed bool            // the collection words are also global managers
	module  bool            // a common module: called by its bare name
}

// NewTarget returns the target for an object of kind named name; false
// when the kind cannot be renamed.
func NewTarget(kind designer.Kind, name string) (*Target, bool) {
	w, ok := words[kind]
	info, known := designer.Lookup(kind)
	if !ok || !known {
		return nil, false
	}
	t := &Target{Kind: kind, Tag: info.Tags[0], Name: name, types: map[string]bool{}, classes: map[string]bool{},
		coll: map[string]bool{}, managed: w.managers, module: kind == "common-module"}
	t.find = newFinder(name)
	for lang, c := range w.class {
		t.classes[string(fold(c))] = true
		t.types[string(fold(c))] = true
		for _, s := range typeSuffixes[lang] {
			t.types[string(fold(c+s))] = true
		}
	}
	for _, e := range w.extra {
		t.types[string(fold(e))] = true
	}
	for _, c := range w.coll {
		t.coll[string(fold(c))] = true
	}
	return t, true
}

func fold(s string) []byte {
	b := []byte(s)
	bsl.FoldInPlace(b)
	return b
}

// isWord reports whether word, folded, is in set.
func isWord(set map[string]bool, word []byte) bool {
	if len(word) > 96 {
		return false
	}
	var buf [96]byte
	b := append(buf[:0], word...)
	bsl.FoldInPlace(b)
	return set[string(b)]
}

func isOneOf(word []byte, list []string) bool {
	for _, w := range list {
		if bsl.EqualFold(word, []byte(w)) {
			return true
		}
	}
	return false
}

// Hits returns the offsets where the name occurs in data in any case, as
// a whole word or not: the cheap first look before a file is read
// closely.
func (t *Target) Hits(data []byte) []int { return t.find.all(data) }

// hitIn reports whether one of hits (sorted) lies wholly inside [start, end).
func (t *Target) hitIn(hits []int, start, end int) bool {
	i := sort.SearchInts(hits, start)
	return i < len(hits) && hits[i]+len(t.Name) <= end
}

// isName reports whether src[start:end] is the target's name.
func (t *Target) isName(word []byte) bool {
	return bsl.EqualFold(word, []byte(t.Name))
}
