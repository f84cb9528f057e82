// What the ledger dialog asks of its controller, one copy for the live table's and for a
// closed table's (opened from the home page): the session tab's graph and statistics, and
// the payments as text to copy. A table page fetches it when its ledger is first opened.
import { tableGraph, tableStats, tableLedger } from './api.js';

// The live table's ledger dialog, just opened: its code (the dialogs' and the ledger's, at
// once rather than one after the other) and its figures.
export async function openLedger(ctrl) {
  Promise.all([import('./views/dialogs.js'), import('./views/ledger.js')]).catch(() => {});
  if (ctrl.ui.ledgerTab === 'session') showLedgerTab(ctrl, 'session');
  try {
    ctrl.ui.ledger = await tableLedger(ctrl.code);
  } catch (e) {
    ctrl.ui.ledger = { error: e.message };
  }
  ctrl.redraw();
}

export function showLedgerTab(ctrl, name) {
  ctrl.ui.ledgerTab = name;
  if (name === 'session') {
    tableGraph(ctrl.code).then((g) => { ctrl.ui.graph = g; }, (e) => { ctrl.ui.graph = { error: e.message }; })
      .then(() => ctrl.redraw());
    tableStats(ctrl.code).then((st) => { ctrl.ui.stats = st; }, (e) => { ctrl.ui.stats = { error: e.message }; })
      .then(() => ctrl.redraw());
  }
  ctrl.redraw();
}

export function copyPayments(ledger) {
  const text = ledger && ledger.payments ? ledger.payments.map((p) => p.text).join('\n') : '';
  if (navigator.clipboard) navigator.clipboard.writeText(text).catch(() => {});
}
