// REST calls (docs/protocol.md sections 1 and 2). Errors come back as {code, message}.

async function call(method, path, body) {
  const res = await fetch(path, {
    method,
    headers: body ? { 'Content-Type': 'application/json' } : {},
    body: body ? JSON.stringify(body) : undefined,
    credentials: 'same-origin',
  });
  let data = null;
  try { data = await res.json(); } catch { data = null; }
  if (!res.ok) {
    const detail = data && data.detail;
    let message = `HTTP ${res.status}`;
    if (detail && typeof detail === 'object' && !Array.isArray(detail)) message = detail.message || message;
    else if (Array.isArray(detail) && detail[0]) {
      const where = (detail[0].loc || []).slice(1).join('.');
      const what = String(detail[0].msg || 'invalid').replace(/^Value error, /, '');
      message = where ? `${where.replace(/_/g, ' ')}: ${what}` : what;
    }
    const err = new Error(message);
    err.status = res.status;
    err.code = detail && detail.code;
    throw err;
  }
  return data;
}

// The viewer, or null before a name is picked (`{"session": null}`).
export const whoami = () => call('GET', '/api/session').then((me) => (me && me.player_id ? me : null));
export const setName = (name) => call('POST', '/api/session', { name });
export const createTable = (config) => call('POST', '/api/tables', config);
export const myTables = () => call('GET', '/api/tables');
export const tableLedger = (code) => call('GET', `/api/tables/${encodeURIComponent(code)}/ledger`);
export const createTournament = (body) => call('POST', '/api/tournaments', body);
export const previewTournament = (body) => call('POST', '/api/tournaments/preview', body);

// Review (docs/hand-history.md): personal answers, never cached.
const query = (params) => {
  const q = new URLSearchParams(Object.entries(params).filter(([, v]) => v !== '' && v != null));
  const text = q.toString();
  return text ? `?${text}` : '';
};
export const myHands = (params) => call('GET', `/api/hands${query(params)}`);
export const tableStats = (code) => call('GET', `/api/tables/${encodeURIComponent(code)}/stats`);
export const tableGraph = (code) => call('GET', `/api/tables/${encodeURIComponent(code)}/graph`);
export const playerStats = (id) => call('GET', `/api/players/${encodeURIComponent(id)}/stats`);
export const myPast = () => call('GET', '/api/me/past');
export const newSignInLink = () => call('POST', '/api/session/links');
export const signInLinks = () => call('GET', '/api/session/links');
export const revokeSignInLink = (id) => call('DELETE', `/api/session/links/${encodeURIComponent(id)}`);
export const redeemSignInLink = (token) => call('POST', '/api/session/redeem', { token });
