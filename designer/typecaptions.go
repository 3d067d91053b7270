package designer

import (
	"slices"
	"strings"
)

// The platform's names of the types a Designer type description (a Type
// element: v8:Type, v8:TypeSet and their qualifiers) names: data, as the
// captions of properties are (captions.go).

// PrimitiveTypeCaption is the platform's name of an XML Schema type a
// value may have, by its local name (string, decimal, ...).
func PrimitiveTypeCaption(local string) (Caption, bool) {
	c, ok := primitiveTypes[local]
	return c, ok
}

// PlatformTypeCaption is the platform's name of one of its own types,
// by its local name in the core namespace (ValueStorage, UUID, ...).
func PlatformTypeCaption(local string) (Caption, bool) {
	c, ok := platformTypes[local]
	return c, ok
}

// TypeFamilyCaption is the name of a type of the configuration namespace
// that stands for every object of a kind (AnyRef, CatalogRef, ...): it
// has no target.
func TypeFamilyCaption(name string) (Caption, bool) {
	c, ok := typeFamilies[name]
	return c, ok
}

// KindOfTypeName is the kind a type name of the configuration namespace
// refers to: CatalogRef (of CatalogRef.X) to catalogs, DefinedType to
// defined types, Characteristic to charts of characteristic types.
func KindOfTypeName(typeName string) (Kind, bool) {
	switch typeName {
	case "DefinedType":
		return "defined-type", true
	case "Characteristic":
		return "chart-of-characteristic-types", true
	}
	for _, suf := range typeSuffixes {
		if base, ok := strings.CutSuffix(typeName, suf); ok {
			if info, ok := KindOfTag(base); ok {
				return info.Kind, true
			}
		}
	}
	return "", false
}

// RefType is a kind whose objects make reference types: the type's
// prefix (CatalogRef), and its Russian name (СправочникСсылка).
type RefType struct {
	Kind       Kind
	Prefix, RU string
}

// RefTypes are the kinds whose objects make reference types, in the
// order a list of types offers them.
func RefTypes() []RefType { return slices.Clone(refTypes) }

// QualifierCaption describes the qualifiers of a type: string length,
// number digits or date parts; other qualifiers have none.
func QualifierCaption(el *Element) (Caption, bool) {
	get := func(name string) string {
		if c := el.Child(name); c != nil {
			return strings.TrimSpace(c.Text)
		}
		return ""
	}
	switch el.Local {
	case "StringQualifiers":
		n := get("Length")
		if n == "" || n == "0" {
			return Caption{RU: "неограниченной длины", EN: "unlimited length"}, true
		}
		return Caption{RU: "длина " + n, EN: "length " + n}, true
	case "NumberQualifiers":
		d, f := get("Digits"), get("FractionDigits")
		c := Caption{RU: "разрядность " + d + ", точность " + f, EN: d + " digits, " + f + " fractional"}
		if get("AllowedSign") == "Nonnegative" {
			c.RU += ", неотрицательное"
			c.EN += ", nonnegative"
		}
		return c, true
	case "DateQualifiers":
		switch get("DateFractions") {
		case "Date":
			return Caption{RU: "дата", EN: "date"}, true
		case "Time":
			return Caption{RU: "время", EN: "time"}, true
		}
		return Caption{RU: "дата и время", EN: "date and time"}, true
	}
	return Caption{}, false
}

var primitiveTypes = map[string]Caption{
	"string":       {RU: "Строка", EN: "String"},
	"decimal":      {RU: "Число", EN: "Number"},
	"boolean":      {RU: "Булево", EN: "Boolean"},
	"dateTime":     {RU: "Дата", EN: "Date"},
	"base64Binary": {RU: "Двоичные данные", EN: "Binary data"},
}

var platformTypes = map[string]Caption{
	"ValueStorage":    {RU: "Хранилище значения", EN: "Value storage"},
	"UUID":            {RU: "Уникальный идентификатор", EN: "UUID"},
	"StandardPeriod":  {RU: "Стандартный период", EN: "Standard period"},
	"Null":            {RU: "Null", EN: "Null"},
	"Undefined":       {RU: "Неопределено", EN: "Undefined"},
	"TypeDescription": {RU: "Описание типов", EN: "Type description"},
}

var typeFamilies = map[string]Caption{
	"AnyRef":                        {RU: "Любая ссылка", EN: "Any reference"},
	"AnyIBRef":                      {RU: "Любая ссылка информационной базы", EN: "Any infobase reference"},
	"CatalogRef":                    {RU: "Любая ссылка на справочник", EN: "Any catalog reference"},
	"DocumentRef":                   {RU: "Любая ссылка на документ", EN: "Any document reference"},
	"EnumRef":                       {RU: "Любая ссылка на перечисление", EN: "Any enum reference"},
	"ChartOfCharacteristicTypesRef": {RU: "Любая ссылка на план видов характеристик", EN: "Any characteristic type reference"},
	"ChartOfAccountsRef":            {RU: "Любая ссылка на план счетов", EN: "Any account reference"},
	"ChartOfCalculationTypesRef":    {RU: "Любая ссылка на план видов расчета", EN: "Any calculation type reference"},
	"ExchangePlanRef":               {RU: "Любая ссылка на план обмена", EN: "Any exchange plan reference"},
	"BusinessProcessRef":            {RU: "Любая ссылка на бизнес-процесс", EN: "Any business process reference"},
	"TaskRef":                       {RU: "Любая ссылка на задачу", EN: "Any task reference"},
	"CatalogObject":                 {RU: "Любой объект справочника", EN: "Any catalog object"},
	"DocumentObject":                {RU: "Любой объект документа", EN: "Any document object"},
}

// typeSuffixes map the configuration type names to kinds: CatalogRef.X
// is a reference to catalog X.
var typeSuffixes = []string{"Ref", "Object", "RecordSet", "RecordKey", "Manager", "ValueManager", "List", "Selection"}

var refTypes = []RefType{
	{"catalog", "CatalogRef", "СправочникСсылка"},
	{"document", "DocumentRef", "ДокументСсылка"},
	{"enum", "EnumRef", "ПеречислениеСсылка"},
	{"chart-of-characteristic-types", "ChartOfCharacteristicTypesRef", "ПланВидовХарактеристикСсылка"},
	{"chart-of-accounts", "ChartOfAccountsRef", "ПланСчетовСсылка"},
	{"chart-of-calculation-types", "ChartOfCalculationTypesRef", "ПланВидовРасчетаСсылка"},
	{"exchange-plan", "ExchangePlanRef", "ПланОбменаСсылка"},
	{"business-process", "BusinessProcessRef", "БизнесПроцессСсылка"},
	{"task", "TaskRef", "ЗадачаСсылка"},
}
