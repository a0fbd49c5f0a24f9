/** Effective configs and a form that edits them through IncrementalAlterConfigs (SET, or DELETE back to the default). */
import type { JSX } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, send, type Config } from '../api.js';
import { ErrorBox, Table } from '../ui.js';

/**
 * `initial` is the configs already read (the broker page's answer holds them), or a request for them
 * the page started alongside its own (the topic page), or null: the section asks for them itself.
 */
export function ConfigSection(props: { path: string; initial: Config[] | Promise<Config[]> | null }): JSX.Element {
  const [configs, setConfigs] = useState<Config[] | null>(Array.isArray(props.initial) ? props.initial : null);
  const [loadError, setLoadError] = useState<unknown>(null);
  const [status, setStatus] = useState<{ good: string } | { error: unknown } | null>(null);
  const name = useRef<HTMLInputElement>(null);
  const value = useRef<HTMLInputElement>(null);
  const validate = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (!Array.isArray(props.initial)) (props.initial ?? api<Config[]>(props.path)).then(setConfigs, setLoadError);
  }, [props.path]);
  const change = async (remove: boolean): Promise<void> => {
    const n = name.current!.value.trim();
    if (n === '') { setStatus({ error: 'name the config to change' }); return; }
    try {
      const r = await send<{ validateOnly: boolean; configs: Config[] }>(props.path, { changes: [{ name: n, value: remove ? null : value.current!.value }], validateOnly: validate.current!.checked });
      setStatus({ good: (r.validateOnly ? 'Valid (not applied): ' : remove ? 'Returned to its default: ' : 'Set: ') + n });
      if (!r.validateOnly) setConfigs(r.configs);
    } catch (error) {
      setStatus({ error });
    }
  };
  return (
    <div>
      <form class="bar" onSubmit={(ev) => { ev.preventDefault(); void change(false); }}>
        <label>Config<input ref={name} id="cfg-name" name="config" list="cfg-names" size={28} autocomplete="off" /></label>
        <datalist id="cfg-names">{(configs ?? []).filter((c) => !c.readOnly).map((c) => <option value={c.name} />)}</datalist>
        <label>Value<input ref={value} id="cfg-value" name="value" size={20} /></label>
        <label class="check"><input ref={validate} id="cfg-validate" type="checkbox" name="validateOnly" />Validate only</label>
        <button type="submit" id="cfg-set">Set</button>
        <button type="button" id="cfg-delete" class="secondary" onClick={() => void change(true)}>Reset to default</button>
      </form>
      <div id="cfg-status" aria-live="polite">{status && ('good' in status ? <p class="good">{status.good}</p> : <ErrorBox error={status.error} />)}</div>
      <div id="cfg-table">
        {loadError ? <ErrorBox error={loadError} /> : configs === null ? <p class="muted">Loading configs…</p> : (
          <Table headers={['Name', 'Value', 'Source']} rows={configs.map((c) => [<code>{c.name}</code>, c.sensitive ? '(sensitive)' : c.value === null ? <span class="muted">null</span> : c.value, c.source + (c.readOnly ? ' · read-only' : '')])} />
        )}
      </div>
    </div>
  );
}
