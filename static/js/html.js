// The one view library: Preact's virtual DOM, written with htm's tagged templates (no build).
// Text is always set as text: a player's name can never become markup.
import { h, render, Component } from '../vendor/preact.mjs';
import htm from '../vendor/htm.mjs';

export const html = htm.bind(h);
export { render };

// A part of the view that most messages leave as it was (the top bar, the results, the chat):
// drawn again only when one of `deps` differs (===, one by one) from the last draw's, so the
// diff of the whole table skips it. `view` must read nothing that is not in `deps`.
class Memo extends Component {
  shouldComponentUpdate(next) {
    const was = this.props.deps;
    const now = next.deps;
    return was.length !== now.length || now.some((d, i) => d !== was[i]);
  }

  render(props) { return props.view(); }
}

export function memo(deps, view) {
  return h(Memo, { deps, view });
}
