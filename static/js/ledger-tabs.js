// What the ledger dialog asks of its controller, one copy for the live table's and for a
// closed table's (opened from the home page): the session tab's graph and statistics, and
// the payments as text to copy.
import { tableGraph, tableStats } from './api.js';

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
