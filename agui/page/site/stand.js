// The stand page: loads the checker (the Go package agui compiled to
// WebAssembly), checks the chosen local records and the tutorial, and shows
// each result. Everything that comes from a record is inserted as text,
// through dataNode and text nodes only (ag-ui.view.page-text); the page's
// own words are in UI below, the contract's words come from the catalog.
"use strict";

(function () {
  const catalog = globalThis.aguiCatalog;
  const input = globalThis.aguiInput;
  const FileLevel = input.FileLevel;

  // The page's own words. Titles and requirements of rules, profiles and
  // limits come from the catalog, which is generated from the spec.
  const UI = {
    ru: {
      title: "Проверка записей AG-UI",
      lead: "Локальный стенд: выбранные файлы проверяются здесь, в браузере, тем же проверяющим, что и agui check. Сервер агента не подключён, и страница ни с кем не связывается.",
      langSwitch: "English",
      langSwitchLabel: "Switch the interface to English",
      profile: "Профиль",
      files: "Файлы записей",
      filesHint: "Один или несколько файлов JSON: массив событий или одно событие в строке.",
      drop: "…или перетащите файлы сюда",
      tutorial: "Проверить учебный пример",
      clear: "Очистить результаты",
      loading: "Загрузка проверяющего…",
      ready: "Проверяющий готов.",
      mismatch: "Каталог страницы не соответствует проверяющему: отпечаток или учебный пример различаются. Проверка отключена; пересоберите страницу (make page).",
      loadFailed: "Проверяющий не загрузился: ",
      chosenFile: "Выбранный файл",
      tutorialBadge: "УЧЕБНЫЙ ПРИМЕР",
      tutorialNote: "Это встроенный учебный пример, а не файл, который вы выбрали. Выберите файл, чтобы проверить свою запись.",
      tutorialRecord: "Текст учебной записи",
      valueBadge: "Программный вход",
      verdict: "Вердикт",
      accepted: "ПРИНЯТА",
      rejected: "ОТКЛОНЕНА",
      unusable: "НЕ ПРОВЕРЕНА",
      unusableNote: "Запись нельзя проверить: ",
      events: "Событий",
      profileOf: "Профиль",
      report: "Отчёт",
      json: "JSON",
      viewSwitch: "Вид результата",
      findings: "Находки",
      warnings: "Предупреждения",
      colEvent: "Событие",
      colPointer: "Указатель",
      colRule: "Правило",
      colTitle: "Название правила",
      colReason: "Причина (буквально)",
      wholeRecord: "вся запись",
      unfinished: "Незавершённое: открыто записью и не закрыто",
      kind_message: "сообщение",
      kind_step: "шаг",
      kind_run: "запуск",
      "kind_tool call": "вызов инструмента",
      runs: "Запуски и заявленный итог (показан, не применён)",
      run: "запуск",
      thread: "поток",
      outcome: "итог",
      errorMessage: "сообщение об ошибке (как прислано)",
      errorCode: "код ошибки (как прислан)",
      interrupt: "остановка",
      reason: "причина",
      message: "сообщение",
      toolCall: "вызов",
      metadata: "метаданные",
      interruptsNote: "Остановки только показываются: стенд их не решает, не отвечает на них и не возобновляет запуск.",
      pending: "ожидающий вызов инструмента",
      result: "результат",
      messages: "Сообщения",
      unfinishedMark: "НЕ ЗАВЕРШЕНО",
      toolCalls: "Вызовы инструментов — только предложения, ни один инструмент не запускался",
      arguments: "аргументы (как переданы)",
      parent: "в сообщении",
      resultOf: "результат вызова",
      toolFailed: "инструмент не сработал",
      steps: "Шаги",
      state: "Итоговое состояние (показано, нигде не применено)",
      noState: "Запись не задала состояния.",
      compact: "Состояние и итог показаны компактно, чтобы уложиться в предел вывода; ни одно значение не обрезано.",
      refused: "Показ отменён: даже компактный вывод превышает предел. Ниже — только вердикт и правила находок.",
      checked: "Проверено записей: {n}; принято: {a}; отклонено: {r}; не проверено: {u}.",
      oneChecked: "{name}: {verdict}.",
      help: "Справка",
      helpIntro: "Выберите одну или несколько записей событий AG-UI. Каждая проверяется по выбранному профилю; результат показывает вердикт, находки, незавершённые элементы, состояние и заявленный итог. Вкладка JSON показывает тот же JSON, что печатает agui check --json.",
      helpResult: "Что показывает результат",
      helpBoundary: "Что доказывает принятие",
      helpOffline: "Без сети",
      helpProgrammatic: "Программный вход",
      helpProgrammaticIntro: "Из консоли или сценария этой страницы запись можно передать значениями JavaScript, а не текстом:",
      helpProgrammaticRules: "Правила программного входа",
      helpLimits: "Пределы профиля",
      helpEvents: "События профиля",
      colLimit: "Предел",
      colValue: "Значение",
      revision: "Редакция",
      digest: "Отпечаток контракта",
      catalogLink: "Каталог страницы",
      outputBound: "Предел вывода",
    },
    en: {
      title: "AG-UI record checker",
      lead: "The local stand: chosen files are checked here, in the browser, by the same checker as agui check. No agent server is connected, and the page contacts no one.",
      langSwitch: "Русский",
      langSwitchLabel: "Переключить интерфейс на русский",
      profile: "Profile",
      files: "Record files",
      filesHint: "One or more JSON files: an array of events, or one event per line.",
      drop: "…or drop files here",
      tutorial: "Check the tutorial example",
      clear: "Clear results",
      loading: "Loading the checker…",
      ready: "The checker is ready.",
      mismatch: "The page's catalog does not match the checker: the digest or the tutorial differ. Checking is disabled; rebuild the page (make page).",
      loadFailed: "The checker did not load: ",
      chosenFile: "Chosen file",
      tutorialBadge: "TUTORIAL EXAMPLE",
      tutorialNote: "This is the built-in tutorial example, not a file you chose. Choose a file to check your own record.",
      tutorialRecord: "The tutorial record's text",
      valueBadge: "Programmatic input",
      verdict: "Verdict",
      accepted: "ACCEPTED",
      rejected: "REJECTED",
      unusable: "NOT CHECKED",
      unusableNote: "The record cannot be checked: ",
      events: "Events",
      profileOf: "Profile",
      report: "Report",
      json: "JSON",
      viewSwitch: "Result view",
      findings: "Findings",
      warnings: "Warnings",
      colEvent: "Event",
      colPointer: "Pointer",
      colRule: "Rule",
      colTitle: "Rule title",
      colReason: "Reason (literal)",
      wholeRecord: "the record",
      unfinished: "Unfinished: opened by the record and never closed",
      kind_message: "message",
      kind_step: "step",
      kind_run: "run",
      "kind_tool call": "tool call",
      runs: "Runs and the declared outcome (shown, not applied)",
      run: "run",
      thread: "thread",
      outcome: "outcome",
      errorMessage: "error message (as sent)",
      errorCode: "error code (as sent)",
      interrupt: "interrupt",
      reason: "reason",
      message: "message",
      toolCall: "tool call",
      metadata: "metadata",
      interruptsNote: "Interrupts are shown only: the stand never decides, answers or resumes them.",
      pending: "pending tool call",
      result: "result",
      messages: "Messages",
      unfinishedMark: "UNFINISHED",
      toolCalls: "Tool calls — proposals only, no tool was run",
      arguments: "arguments (as streamed)",
      parent: "in message",
      resultOf: "result of tool call",
      toolFailed: "the tool failed",
      steps: "Steps",
      state: "Final state (shown, not applied anywhere)",
      noState: "The record set no state.",
      compact: "State and outcome are shown compactly to stay within the output limit; no value is cut.",
      refused: "Display refused: even the compact output exceeds the limit. Only the verdict and the rules of the findings are shown.",
      checked: "Records checked: {n}; accepted: {a}; rejected: {r}; not checked: {u}.",
      oneChecked: "{name}: {verdict}.",
      help: "Help",
      helpIntro: "Choose one or more AG-UI event records. Each is checked under the selected profile; the result shows the verdict, the findings, unfinished items, the state and the declared outcome. The JSON tab shows the same JSON agui check --json prints.",
      helpResult: "What the result shows",
      helpBoundary: "What acceptance proves",
      helpOffline: "No network",
      helpProgrammatic: "Programmatic input",
      helpProgrammaticIntro: "From the console or a script of this page, a record can be given as JavaScript values instead of text:",
      helpProgrammaticRules: "Rules of the programmatic input",
      helpLimits: "Limits of the profile",
      helpEvents: "Events of the profile",
      colLimit: "Limit",
      colValue: "Value",
      revision: "Revision",
      digest: "Contract digest",
      catalogLink: "Page catalog",
      outputBound: "Output limit",
    },
  };

  let lang = "ru";
  let checker = null;
  let records = [];

  const $ = (id) => document.getElementById(id);

  function t(key) {
    return UI[lang][key];
  }

  function fill(template, values) {
    let out = template;
    for (const k of Object.keys(values)) {
      out = out.split("{" + k + "}").join(values[k]);
    }
    return out;
  }

  function ruleById(id) {
    return catalog.rules.find((r) => r.id === id);
  }

  function ruleText(symbol, member) {
    return catalog.rules.find((r) => r.symbol === symbol)[member][lang];
  }

  function profileByName(name) {
    return catalog.profiles.find((p) => p.name === name);
  }

  function limitValue(profile, symbol) {
    return profile.limits.find((l) => l.symbol === symbol).value;
  }

  // el builds an element of the page's own making: attributes are the
  // page's, children are nodes or the page's own strings, as text.
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      e.setAttribute(k, v);
    }
    for (const c of children) {
      if (c === null || c === undefined) {
        continue;
      }
      e.append(typeof c === "string" ? document.createTextNode(c) : c);
    }
    return e;
  }

  // dataNode is the only way data from a record reaches the page: as the
  // text of an element whose direction is isolated, so that bidirectional
  // controls in the data cannot reorder the page's own words.
  function dataNode(text, block) {
    const e = document.createElement(block ? "pre" : "bdi");
    e.className = block ? "data block" : "data";
    e.textContent = text;
    return e;
  }

  // ---- the checker ------------------------------------------------------

  // The status line and the checker's state are kept as functions that
  // spell them, so that switching the language spells them again.
  let statusText = () => "";
  let checkerText = () => "";

  function setStatus(spell) {
    statusText = spell;
    $("status").textContent = spell();
  }

  function setCheckerState(spell, isError) {
    checkerText = spell;
    $("checker-state").textContent = spell();
    if (isError) {
      $("checker-state").className = "error";
    }
  }

  function setControls(enabled) {
    for (const id of ["files", "tutorial", "profile"]) {
      $(id).disabled = !enabled;
    }
  }

  let readyResolve;
  let readyReject;
  const ready = new Promise((resolve, reject) => {
    readyResolve = resolve;
    readyReject = reject;
  });
  // A page that cannot check says so on the page; the rejection is for
  // programmatic callers who await aguiStand.ready.
  ready.catch(() => {});

  function load() {
    setControls(false);
    setCheckerState(() => t("loading"));
    globalThis.aguiCheckerReady = (api) => {
      delete globalThis.aguiCheckerReady;
      // One checker: the catalog the page reads must describe the contract
      // the checker was built from, and carry the tutorial it embeds.
      if (api.digest !== catalog.digest || api.tutorial !== catalog.tutorial.record) {
        setCheckerState(() => t("mismatch"), true);
        readyReject(new Error("catalog and checker differ"));
        return;
      }
      checker = api;
      setCheckerState(() => t("ready"));
      setControls(true);
      performance.mark("agui-ready");
      document.documentElement.dataset.ready = "true";
      readyResolve();
    };
    const fail = (err) => {
      setCheckerState(() => t("loadFailed") + String(err), true);
      readyReject(err);
    };
    try {
      const b64 = globalThis.aguiWasmBase64;
      delete globalThis.aguiWasmBase64;
      performance.mark("agui-script-start");
      const bytes = Uint8Array.fromBase64 ? Uint8Array.fromBase64(b64) : Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      performance.mark("agui-wasm-decoded");
      const go = new globalThis.Go();
      WebAssembly.instantiate(bytes, go.importObject).then((r) => {
        performance.mark("agui-wasm-compiled");
        go.run(r.instance);
      }).catch(fail);
    } catch (err) {
      fail(err);
    }
  }

  function profileName() {
    return $("profile").value;
  }

  // check runs one record through the checker and times it.
  function check(record) {
    const start = performance.now();
    let answer;
    const profile = profileName();
    switch (record.kind) {
      case "tutorial":
        answer = checker.checkTutorial(profile);
        break;
      case "file":
        answer = checker.checkBytes(record.bytes, profile, record.source);
        break;
    }
    record.answer = answer;
    record.checkMs = performance.now() - start;
  }

  // ---- rendering --------------------------------------------------------

  function verdictWord(answer) {
    if (answer.error) {
      return t("unusable");
    }
    return answer.accepted ? t("accepted") : t("rejected");
  }

  function findingTable(caption, findings, withReason) {
    const head = el("tr", {},
      el("th", { scope: "col" }, t("colEvent")),
      el("th", { scope: "col" }, t("colPointer")),
      el("th", { scope: "col" }, t("colRule")),
      el("th", { scope: "col" }, t("colTitle")),
      withReason ? el("th", { scope: "col" }, t("colReason")) : null);
    const body = el("tbody", {});
    for (const f of findings) {
      const rule = ruleById(f.rule);
      body.append(el("tr", { class: "finding" },
        el("td", { class: "event" }, f.event === FileLevel ? t("wholeRecord") : String(f.event)),
        el("td", { class: "pointer" }, dataNode(f.pointer)),
        el("td", { class: "rule" }, el("code", {}, f.rule)),
        el("td", { class: "rule-title" }, rule ? rule.title[lang] : ""),
        withReason ? el("td", { class: "reason" }, dataNode(f.message)) : null));
    }
    return el("table", { class: "findings" }, el("caption", {}, caption), el("thead", {}, head), body);
  }

  function section(cls, heading, ...children) {
    return el("section", { class: cls }, el("h3", {}, heading), ...children);
  }

  function field(label, node) {
    return el("div", { class: "field" }, el("span", { class: "label" }, label + ": "), node);
  }

  function renderRuns(runs) {
    const list = el("ul", { class: "runs" });
    for (const run of runs) {
      const oc = run.outcome;
      const item = el("li", { class: "run" },
        t("run") + " ", dataNode(run.runId || ""), " · " + t("thread") + " ", dataNode(run.threadId || ""),
        " · " + t("outcome") + ": ", el("strong", { class: "outcome" }, oc.kind));
      if (oc.error) {
        item.append(field(t("errorMessage"), dataNode(oc.error.message)));
        if (oc.error.code) {
          item.append(field(t("errorCode"), dataNode(oc.error.code)));
        }
      }
      for (const it of oc.interrupts || []) {
        const box = el("div", { class: "interrupt" }, field(t("interrupt"), dataNode(it.id)), field(t("reason"), dataNode(it.reason)));
        if (it.message) {
          box.append(field(t("message"), dataNode(it.message)));
        }
        if (it.toolCallId) {
          box.append(field(t("toolCall"), dataNode(it.toolCallId)));
        }
        if (it.metadata !== undefined) {
          box.append(field(t("metadata"), dataNode(it.metadata, true)));
        }
        item.append(box);
      }
      if ((oc.interrupts || []).length > 0) {
        item.append(el("p", { class: "note" }, t("interruptsNote")));
      }
      for (const id of oc.pendingToolCalls || []) {
        item.append(field(t("pending"), dataNode(id)));
      }
      if (oc.result !== undefined) {
        item.append(field(t("result"), dataNode(oc.result, true)));
      }
      list.append(item);
    }
    return list;
  }

  function unfinishedMark(complete) {
    return complete ? null : el("span", { class: "unfinished-mark" }, " [" + t("unfinishedMark") + "]");
  }

  function renderReport(view, form) {
    const box = el("div", { class: "report" });
    if (view.findings.length > 0) {
      box.append(findingTable(t("findings"), view.findings, true));
    }
    if (view.warnings.length > 0) {
      box.append(findingTable(t("warnings"), view.warnings, true));
    }
    if (view.unfinished.length > 0) {
      const ul = el("ul", {});
      for (const u of view.unfinished) {
        ul.append(el("li", {}, (t("kind_" + u.kind) || u.kind) + " ", dataNode(u.id)));
      }
      box.append(section("unfinished", t("unfinished"), ul));
    }
    if (view.runs.length > 0) {
      box.append(section("runs-section", t("runs"), renderRuns(view.runs)));
    }
    if (view.messages.length > 0) {
      const ul = el("ul", { class: "messages" });
      for (const m of view.messages) {
        const li = el("li", { class: "message" }, el("span", { class: "role" }, m.role), " ", dataNode(m.id), unfinishedMark(m.complete));
        if (m.toolCallId) {
          // A tool result shown on its own names the call it answers.
          li.append(" (" + t("resultOf") + " ", dataNode(m.toolCallId), ")");
        }
        li.append(m.data !== undefined ? dataNode(m.data, true) : dataNode(m.content, true));
        if (m.error) {
          li.append(field(t("toolFailed"), dataNode(m.error)));
        }
        ul.append(li);
      }
      box.append(section("messages-section", t("messages"), ul));
    }
    if (view.toolCalls.length > 0) {
      const ul = el("ul", { class: "tool-calls" });
      for (const c of view.toolCalls) {
        const li = el("li", { class: "tool-call" }, dataNode(c.id), " ", dataNode(c.name), unfinishedMark(c.complete));
        if (c.parentMessageId) {
          li.append(" (" + t("parent") + " ", dataNode(c.parentMessageId), ")");
        }
        li.append(field(t("arguments"), dataNode(c.arguments, true)));
        if (c.result !== undefined) {
          li.append(field(t("result"), dataNode(c.result, true)));
        }
        ul.append(li);
      }
      box.append(section("tool-calls-section", t("toolCalls"), ul));
    }
    if (view.steps.length > 0) {
      const ul = el("ul", { class: "steps" });
      for (const s of view.steps) {
        ul.append(el("li", {}, dataNode(s.name), unfinishedMark(s.complete)));
      }
      box.append(section("steps-section", t("steps"), ul));
    }
    box.append(section("state-section", t("state"), view.state === null ? el("p", {}, t("noState")) : dataNode(view.state, true)));
    if (view.accepted) {
      box.append(el("p", { class: "boundary" }, ruleText("RuleStandBoundary", "requirement")));
    }
    if (form === "compact") {
      box.append(el("p", { class: "compact-note", role: "note" }, t("compact")));
    }
    return box;
  }

  function renderRefusal(answer) {
    const doc = JSON.parse(answer.json);
    const box = el("div", { class: "report refused" }, el("p", { class: "refusal" }, t("refused")), dataNode(doc.refused));
    if (doc.result.findings.length > 0) {
      box.append(findingTable(t("findings"), doc.result.findings, false));
    }
    return box;
  }

  // renderResult renders one record's result: its kind, verdict and either
  // the report or the exact JSON. The report and the JSON are never both
  // in the page, so that what is rendered stays within the output bound.
  function renderResult(record, index) {
    const a = record.answer;
    const id = "record-" + index;
    const isTutorial = record.kind === "tutorial";
    const badge = el("span", { class: isTutorial ? "badge tutorial" : "badge chosen" }, isTutorial ? t("tutorialBadge") : t("chosenFile"));
    const art = el("article", {
      id: id,
      class: "record " + (isTutorial ? "is-tutorial" : "is-file"),
      "aria-labelledby": id + "-name",
      "data-source": record.source,
      "data-kind": record.kind,
      "data-verdict": a.error ? "unusable" : a.accepted ? "accepted" : "rejected",
      "data-form": a.form || "",
      "data-check-ms": record.checkMs.toFixed(2),
    });
    art.append(el("header", {}, el("h2", { id: id + "-name" }, dataNode(record.source)), " ", badge));
    if (isTutorial) {
      art.append(el("p", { class: "tutorial-note" }, t("tutorialNote")));
      art.append(el("details", { class: "tutorial-record" }, el("summary", {}, t("tutorialRecord")), dataNode(catalog.tutorial.record, true)));
    }
    const verdict = el("p", { class: "verdict " + (a.error ? "unusable" : a.accepted ? "accepted" : "rejected") },
      t("verdict") + ": ", el("strong", {}, verdictWord(a)));
    art.append(verdict);
    if (a.error) {
      art.append(el("p", { class: "unusable-note" }, t("unusableNote"), dataNode(a.error)));
      return art;
    }
    const head = a.form === "refused" ? JSON.parse(a.json).result : JSON.parse(a.view);
    art.append(el("p", { class: "meta" }, t("profileOf") + ": " + head.profile + (head.revision ? " (" + head.revision + ")" : "") + " · " + t("events") + ": " + head.events));
    const switcher = el("div", { class: "view-switch", role: "group", "aria-label": t("viewSwitch") });
    for (const v of ["report", "json"]) {
      const b = el("button", { type: "button", class: "view-" + v, "aria-pressed": String(record.view === v) }, t(v));
      b.addEventListener("click", () => {
        record.view = v;
        art.replaceWith(renderResult(record, index));
        document.querySelector("#" + id + " .view-" + v)?.focus();
      });
      switcher.append(b);
    }
    art.append(switcher);
    if (record.view === "json") {
      art.append(el("pre", { class: "json" }, a.json));
    } else if (a.form === "refused") {
      art.append(renderRefusal(a));
    } else {
      art.append(renderReport(JSON.parse(a.view), a.form));
    }
    return art;
  }

  function renderAll() {
    const box = $("results");
    box.replaceChildren(...records.map(renderResult));
  }

  function announce(batch) {
    if (batch.length === 1) {
      const r = batch[0];
      setStatus(() => fill(t("oneChecked"), { name: r.source, verdict: verdictWord(r.answer) }));
      return;
    }
    const n = batch.length;
    const a = batch.filter((r) => !r.answer.error && r.answer.accepted).length;
    const u = batch.filter((r) => r.answer.error).length;
    setStatus(() => fill(t("checked"), { n: n, a: a, r: n - a - u, u: u }));
  }

  function addRecords(batch) {
    for (const r of batch) {
      check(r);
    }
    records = records.concat(batch);
    const start = performance.now();
    renderAll();
    const renderMs = performance.now() - start;
    for (const r of batch) {
      const art = document.getElementById("record-" + records.indexOf(r));
      art.dataset.renderMs = renderMs.toFixed(2);
      art.dataset.readMs = (r.readMs || 0).toFixed(2);
    }
    announce(batch);
  }

  async function readFiles(fileList) {
    const limit = limitValue(profileByName(catalog.defaultProfile), "LimitInputBytes");
    const batch = [];
    for (const f of fileList) {
      // As agui check does: one byte past the limit is enough to know that
      // a record is too large.
      const start = performance.now();
      const buf = await f.slice(0, limit + 1).arrayBuffer();
      batch.push({ kind: "file", source: f.name, bytes: new Uint8Array(buf), view: "report", readMs: performance.now() - start });
    }
    addRecords(batch);
  }

  // ---- static texts -----------------------------------------------------

  function renderHelp() {
    const p = profileByName(profileName()) || profileByName(catalog.defaultProfile);
    const limits = el("tbody", {});
    for (const l of p.limits) {
      limits.append(el("tr", {}, el("td", {}, l.title[lang]), el("td", {}, String(l.value) + (l.unit ? " " + l.unit : ""))));
    }
    const rules = el("dl", { class: "js-rules" });
    for (const r of catalog.rules.filter((r) => r.id.startsWith(catalog.domain + ".stand.js-"))) {
      rules.append(el("dt", {}, r.title[lang] + " ", el("code", {}, r.id)), el("dd", {}, r.requirement[lang]));
    }
    $("help-body").replaceChildren(
      el("p", {}, t("helpIntro")),
      el("h3", {}, t("helpResult")), el("p", {}, ruleText("RuleViewResult", "requirement")), el("p", {}, ruleText("RuleViewOutputBound", "requirement")),
      el("h3", {}, t("helpBoundary")), el("p", { class: "boundary" }, ruleText("RuleStandBoundary", "requirement")),
      el("h3", {}, t("helpOffline")), el("p", {}, ruleText("RuleStandPageOffline", "requirement")),
      el("h3", {}, t("helpProgrammatic")), el("p", {}, t("helpProgrammaticIntro")),
      el("pre", { class: "code" }, 'const result = aguiStand.check([\n  { type: "RUN_STARTED", threadId: "t", runId: "r" },\n  { type: "RUN_FINISHED", threadId: "t", runId: "r" },\n], { profile: "stand", source: "my-events" });\nresult.accepted; result.json;'),
      el("h4", {}, t("helpProgrammaticRules")), rules,
      el("h3", {}, t("helpLimits") + " " + p.name), el("table", { class: "limits" }, el("thead", {}, el("tr", {}, el("th", { scope: "col" }, t("colLimit")), el("th", { scope: "col" }, t("colValue")))), limits),
      el("h3", {}, t("helpEvents") + " " + p.name), el("p", { class: "events" }, p.events.join(", ")));
  }

  function renderStatic() {
    document.documentElement.lang = lang;
    document.title = t("title");
    for (const e of document.querySelectorAll("[data-t]")) {
      e.textContent = t(e.dataset.t);
    }
    $("lang").setAttribute("aria-label", t("langSwitchLabel"));
    $("lang").setAttribute("lang", lang === "ru" ? "en" : "ru");
    const sel = $("profile");
    const current = sel.value || catalog.defaultProfile;
    sel.replaceChildren(...catalog.profiles.map((p) => {
      const o = el("option", { value: p.name }, p.name + " — " + p.title[lang] + (p.revision ? " (" + p.revision + ")" : ""));
      o.selected = p.name === current;
      return o;
    }));
    $("profile-description").textContent = profileByName(current).description[lang];
    $("revision").textContent = catalog.revision;
    $("digest").textContent = catalog.digest;
    $("domain-title").textContent = catalog.title[lang];
    $("checker-state").textContent = checkerText();
    $("status").textContent = statusText();
    renderHelp();
  }

  // ---- programmatic input -----------------------------------------------

  // checkValue is window.aguiStand.check: a record given as JavaScript
  // values, read by the rules of input.js and checked by the same checker.
  function checkValue(value, options) {
    if (checker === null) {
      throw new Error("the checker is not ready yet: wait for aguiStand.ready");
    }
    const opt = input.readOptions(options);
    const profile = profileByName(opt.profile || catalog.defaultProfile);
    if (!profile) {
      throw new Error("unknown profile " + JSON.stringify(opt.profile) + " (known: " + catalog.profiles.map((p) => p.name).join(", ") + ")");
    }
    const source = opt.source || "value";
    const read = input.readRecord(value, catalog, profile);
    const answer = read.finding
      ? checker.reject(read.finding.event, read.finding.pointer, read.finding.rule, read.finding.message, profile.name, source)
      : checker.checkValues(read.text, profile.name, source);
    if (answer.error) {
      throw new Error(answer.error);
    }
    return Object.freeze({ accepted: answer.accepted, form: answer.form, json: answer.json, result: JSON.parse(answer.json) });
  }

  // ---- wiring -----------------------------------------------------------

  function init() {
    renderStatic();
    $("lang").addEventListener("click", () => {
      lang = lang === "ru" ? "en" : "ru";
      renderStatic();
      renderAll();
    });
    $("profile").addEventListener("change", () => {
      $("profile-description").textContent = profileByName(profileName()).description[lang];
      renderHelp();
      for (const r of records) {
        check(r);
      }
      renderAll();
      if (records.length > 0) {
        announce(records);
      }
    });
    $("files").addEventListener("change", (e) => {
      const files = Array.from(e.target.files);
      e.target.value = "";
      if (files.length > 0 && checker) {
        readFiles(files);
      }
    });
    $("tutorial").addEventListener("click", () => {
      addRecords([{ kind: "tutorial", source: checker.tutorialSource, view: "report" }]);
    });
    $("clear").addEventListener("click", () => {
      records = [];
      renderAll();
      setStatus(() => "");
    });
    const drop = $("drop");
    // A file dropped anywhere else must not make the browser navigate away.
    document.addEventListener("dragover", (e) => e.preventDefault());
    document.addEventListener("drop", (e) => e.preventDefault());
    drop.addEventListener("dragover", (e) => {
      e.preventDefault();
      drop.classList.add("over");
    });
    drop.addEventListener("dragleave", () => drop.classList.remove("over"));
    drop.addEventListener("drop", (e) => {
      e.preventDefault();
      drop.classList.remove("over");
      if (checker && e.dataTransfer.files.length > 0) {
        readFiles(Array.from(e.dataTransfer.files));
      }
    });
    load();
  }

  Object.defineProperty(globalThis, "aguiStand", {
    value: Object.freeze({ ready: ready, check: checkValue }),
    enumerable: true,
    writable: false,
    configurable: false,
  });

  init();
})();
