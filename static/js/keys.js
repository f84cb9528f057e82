// The table page's keys: `f` fold, `c` check or call, `r`/`b` arm the raise, `a` all in,
// Enter sends what is armed (or confirms a fold), Escape closes or cancels.
export function tableKey(ctrl, e) {
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  // Keys go to the field being typed in; a focused checkbox, slider or button keeps them.
  const t = e.target;
  const typing = t && ((t.tagName === 'INPUT' && !['checkbox', 'radio', 'range', 'button', 'submit'].includes(t.type))
    || t.tagName === 'SELECT' || t.tagName === 'TEXTAREA');
  if (e.key === 'Escape') {
    if (ctrl.ui.dialog) ctrl.ui.dialog = null;
    else if (ctrl.ui.menuOpen) ctrl.ui.menuOpen = false;
    else if (ctrl.settings.logOpen && !ctrl.ui.raising && !ctrl.ui.confirmFold) { ctrl.setSetting('logOpen', false); return; }
    else { ctrl.ui.confirmFold = false; ctrl.ui.raising = false; }
    ctrl.redraw();
    return;
  }
  // Enter in a form (chat, the command box, a dialog) submits that form, nothing else.
  if (e.key === 'Enter' && e.target && e.target.closest && e.target.closest('form')) return;
  if (e.key === 'Enter') {
    if (ctrl.ui.confirmFold) { e.preventDefault(); ctrl.act('fold'); return; }
    if (ctrl.ui.raising) { e.preventDefault(); ctrl.wager(); }
    return;
  }
  if (typing || !ctrl.isMyTurn() || ctrl.state.hand.phase !== 'betting') return;
  const k = e.key.toLowerCase();
  const legal = ctrl.state.hand.legal;
  if (k === 'f') { e.preventDefault(); ctrl.fold(); }
  else if (k === 'c') { e.preventDefault(); ctrl.checkOrCall(); }
  else if ((k === 'r' || k === 'b') && ctrl.wagerKind()) {
    e.preventDefault();
    ctrl.ui.raising = true;
    ctrl.redraw();
    requestAnimationFrame(() => { const el = document.getElementById('amount'); if (el) el.focus(); });
  } else if (k === 'a' && ctrl.wagerKind()) {
    e.preventDefault();
    ctrl.ui.amount = legal.max_to;
    ctrl.ui.amountText = null;
    ctrl.ui.raising = true;
    ctrl.redraw();
  } else if (k === 'a' && legal.actions.includes('call')) {
    e.preventDefault(); // no raise left: all in is the call (for less)
    ctrl.checkOrCall();
  }
}
