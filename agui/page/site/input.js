// The programmatic input of the stand page: JavaScript values, read by the
// rules of the stand profile (ag-ui.stand.js-*) and written out as the JSON
// text of a record, which the checker then reads as it reads a file.
//
// Why it is written this way:
// - Every built-in the walk uses is taken here, once, when the page loads,
//   and called through Reflect.apply: a script that later replaces
//   Object.getPrototypeOf or adds a setter to Array.prototype does not
//   steer the walk (ag-ui.stand.js-boundary). Built-ins changed before the
//   page loaded are not detected; the help says so.
// - Properties are read only through their descriptors, never with a
//   property access that could reach a getter, and the output is built by
//   string concatenation, never through methods of the caller's objects.
// - Limits are counted while walking, before anything is copied, so that
//   shared references cannot make the copy explode.
"use strict";

(function () {
  const apply = Reflect.apply;
  const ownKeys = Reflect.ownKeys;
  const getOwnPropertyDescriptor = Reflect.getOwnPropertyDescriptor;
  const getPrototypeOf = Reflect.getPrototypeOf;
  const hasOwn = Object.hasOwn;
  const freeze = Object.freeze;
  const defineProperty = Reflect.defineProperty;
  const isArray = Array.isArray;
  const numberIsFinite = Number.isFinite;
  const objectIs = Object.is;
  const stringOf = String;
  const stringify = JSON.stringify;
  const isWellFormed = String.prototype.isWellFormed;
  const ObjectPrototype = Object.prototype;
  const ArrayPrototype = Array.prototype;
  const TypeErrorCtor = TypeError;
  const ProxyCtor = Proxy;

  // FileLevel is the event index of a finding about the input as a whole.
  const FileLevel = -1;

  // Rule ids come from the catalog, by the name of their generated Go
  // constant, so that neither side spells an id of its own.
  function ruleIds(catalog) {
    const ids = { __proto__: null };
    const rules = catalog.rules;
    for (let i = 0; i < rules.length; i++) {
      ids[rules[i].symbol] = rules[i].id;
    }
    return new ProxyCtor(ids, {
      get(target, name) {
        if (!hasOwn(target, name)) {
          throw new TypeErrorCtor("the catalog has no rule " + stringOf(name));
        }
        return target[name];
      },
    });
  }

  function limitOf(profile, symbol) {
    for (let i = 0; i < profile.limits.length; i++) {
      if (profile.limits[i].symbol === symbol) {
        return profile.limits[i].value;
      }
    }
    throw new TypeErrorCtor("the profile " + profile.name + " has no limit " + symbol);
  }

  function escapeToken(key) {
    let out = "";
    for (let i = 0; i < key.length; i++) {
      const c = key[i];
      out += c === "~" ? "~0" : c === "/" ? "~1" : c;
    }
    return out;
  }

  function wellFormed(s) {
    return apply(isWellFormed, s, []);
  }

  // STOP is thrown to end a walk at a refusal; the walk compares by
  // identity, so nothing the caller threw can pass for it.
  const STOP = freeze({});

  // Walker reads one input under the limits of one profile.
  function Walker(R, profile) {
    this.R = R;
    this.maxDepth = limitOf(profile, "LimitDepth");
    this.maxValues = limitOf(profile, "LimitValues");
    this.maxText = limitOf(profile, "LimitTextUnits");
    this.values = 0;
    this.text = 0;
    this.event = FileLevel;
    this.at = "";
    this.finding = null;
  }

  Walker.prototype.refuse = function (pointer, rule, message) {
    this.finding = { event: this.event, pointer: pointer, rule: rule, message: message };
    throw STOP;
  };

  Walker.prototype.count = function (pointer) {
    this.values++;
    if (this.values > this.maxValues) {
      this.refuse(pointer, this.R.RuleReaderValues, "the input holds more than " + this.maxValues + " values");
    }
  };

  Walker.prototype.addText = function (s, pointer, what) {
    if (!wellFormed(s)) {
      this.refuse(pointer, this.R.RuleReaderUnpairedSurrogates, what + " holds an unpaired surrogate, which has no UTF-8 form");
    }
    this.text += s.length;
    if (this.text > this.maxText) {
      this.refuse(pointer, this.R.RuleReaderTextUnits, "the strings hold more than " + this.maxText + " text units (UTF-16 code units) together");
    }
  };

  // property returns the value of an own property read through its
  // descriptor: a data property that is enumerable. A getter is never
  // called; a setter never runs.
  Walker.prototype.property = function (obj, key, pointer, what) {
    const d = getOwnPropertyDescriptor(obj, key);
    if (!hasOwn(d, "value")) {
      this.refuse(pointer, this.R.RuleStandJsProperties, what + " is an accessor; getters and setters are never called");
    }
    if (!d.enumerable) {
      this.refuse(pointer, this.R.RuleStandJsProperties, what + " is not enumerable");
    }
    return d.value;
  };

  // value returns the JSON text of v, whose nesting depth is depth: the
  // array of events is at depth 0 and is not counted as a value, as the
  // Go API does not count its slice; an event is at depth 1. up lists the
  // containers above v, for cycles.
  Walker.prototype.value = function (v, pointer, depth, up) {
    const R = this.R;
    // Where an exception of a proxy would be reported.
    this.at = pointer;
    switch (typeof v) {
      case "string":
        this.count(pointer);
        this.addText(v, pointer, "the string");
        return stringify(v);
      case "number":
        this.count(pointer);
        if (!numberIsFinite(v)) {
          this.refuse(pointer, R.RuleStandJsValues, "the number " + stringOf(v) + " is not finite; JSON has no such value");
        }
        // String(-0) is "0": the sign is written, so that the profile's
        // number rules see the same text a file would hold.
        return objectIs(v, -0) ? "-0" : stringOf(v);
      case "boolean":
        this.count(pointer);
        return v ? "true" : "false";
      case "undefined":
        this.refuse(pointer, R.RuleStandJsValues, "undefined has no JSON form");
        break;
      case "symbol":
        this.refuse(pointer, R.RuleStandJsValues, "a symbol has no JSON form");
        break;
      case "bigint":
        this.refuse(pointer, R.RuleStandJsValues, "a bigint has no JSON form; pass a number or a string");
        break;
      case "function":
        this.refuse(pointer, R.RuleStandJsValues, "a function is not data and is never called");
        break;
    }
    if (v === null) {
      this.count(pointer);
      return "null";
    }
    if (depth === 0 && !isArray(v)) {
      this.refuse(pointer, R.RuleReaderRecordShape, "a record given as a value is an array of events");
    }
    for (let a = up; a !== null; a = a.up) {
      if (a.v === v) {
        this.refuse(pointer, R.RuleStandJsCycles, "the value contains itself (a cycle); only shared references without cycles are accepted");
      }
    }
    if (depth > 0) {
      if (depth > this.maxDepth) {
        this.refuse(pointer, R.RuleReaderDepth, "arrays and objects nest deeper than " + this.maxDepth + " levels, counted from the event");
      }
      this.count(pointer);
    }
    const here = { v: v, up: up };
    const keys = ownKeys(v);
    if (isArray(v)) {
      return this.array(v, keys, pointer, depth, here);
    }
    const proto = getPrototypeOf(v);
    if (proto !== ObjectPrototype && proto !== null) {
      this.refuse(pointer, R.RuleStandJsPrototypes, "the object is not a plain object of this page (its prototype is neither this page's Object.prototype nor null)");
    }
    let out = "{";
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      if (typeof key === "symbol") {
        this.refuse(pointer, R.RuleStandJsProperties, "the object has a symbol-keyed property");
      }
      if (!wellFormed(key)) {
        this.refuse(pointer, R.RuleReaderUnpairedSurrogates, "a member name holds an unpaired surrogate, which has no UTF-8 form");
      }
      const p = pointer + "/" + escapeToken(key);
      const member = this.property(v, key, p, "the property");
      this.addText(key, p, "the member name");
      out += (i > 0 ? "," : "") + stringify(key) + ":" + this.value(member, p, depth + 1, here);
    }
    return out + "}";
  };

  // array returns the JSON text of a dense array of this page. In the
  // array of events (depth 0) each element is an event: findings inside
  // it name its index and a pointer from the event.
  Walker.prototype.array = function (v, keys, pointer, depth, here) {
    const R = this.R;
    const what = depth === 0 ? "the array of events" : "the array";
    if (getPrototypeOf(v) !== ArrayPrototype) {
      this.refuse(pointer, R.RuleStandJsPrototypes, what + " is not an array of this page (its prototype is not this page's Array.prototype)");
    }
    const length = getOwnPropertyDescriptor(v, "length").value;
    if (typeof length !== "number") {
      this.refuse(pointer, R.RuleStandJsBoundary, what + " reports no length; it is not an ordinary array");
    }
    let out = "[";
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      if (i === length && key === "length") {
        continue;
      }
      if (typeof key === "symbol") {
        this.refuse(pointer, R.RuleStandJsProperties, what + " has a symbol-keyed property");
      }
      if (i >= length) {
        this.refuse(pointer, R.RuleStandJsArrays, what + " has an extra property " + stringify(key) + "; an array holds only its elements");
      }
      const p = depth === 0 ? "" : pointer + "/" + i;
      if (depth === 0) {
        this.event = i;
      }
      if (key !== stringOf(i)) {
        this.refuse(p, R.RuleStandJsArrays, what + " has a hole at index " + i + "; only dense arrays are accepted");
      }
      const elem = this.property(v, key, p, depth === 0 ? "the event" : "the element");
      out += (i > 0 ? "," : "") + this.value(elem, p, depth + 1, here);
      if (depth === 0) {
        this.event = FileLevel;
      }
    }
    if (keys.length < length + 1) {
      this.refuse(pointer, R.RuleStandJsArrays, what + " has holes; only dense arrays are accepted");
    }
    return out + "]";
  };

  // readRecord reads the events of a programmatic input: a dense array of
  // this page. It returns {text} with the JSON text of the events, or
  // {finding} with what refused it, in the checker's shape.
  function readRecord(value, catalog, profile) {
    const R = ruleIds(catalog);
    const w = new Walker(R, profile);
    try {
      return { text: w.value(value, "", 0, null) };
    } catch (e) {
      if (e === STOP) {
        return { finding: w.finding };
      }
      // A proxy trap threw, or a revoked proxy was read: the value is
      // reported, never trusted, and the exception is not passed on. Its
      // message is not read: that could run the caller's code again.
      return {
        finding: {
          event: w.event,
          pointer: w.at,
          rule: R.RuleStandJsBoundary,
          message: "reading the value threw an exception (a proxy trap or a revoked proxy); the value is not checked",
        },
      };
    }
  }

  // readOptions reads {profile, source} by the same rules: no getter of
  // the caller's options is ever called.
  function readOptions(options) {
    const out = { profile: "", source: "" };
    if (options === undefined || options === null) {
      return out;
    }
    const proto = typeof options === "object" ? getPrototypeOf(options) : undefined;
    if (proto !== ObjectPrototype && proto !== null) {
      throw new TypeErrorCtor("options are a plain object: {profile, source}");
    }
    const keys = ownKeys(options);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      const d = getOwnPropertyDescriptor(options, key);
      if ((key !== "profile" && key !== "source") || !hasOwn(d, "value") || typeof d.value !== "string") {
        throw new TypeErrorCtor("options are {profile, source}, each a string data property; got " + (typeof key === "symbol" ? "a symbol key" : stringify(key)));
      }
      out[key] = d.value;
    }
    return out;
  }

  defineProperty(globalThis, "aguiInput", {
    value: freeze({ readRecord: freeze(readRecord), readOptions: freeze(readOptions), FileLevel: FileLevel }),
    enumerable: false,
    writable: false,
    configurable: false,
  });
})();
