/* The sealed page's one script (exporter/seal.py has the envelope's format): read the key from the
 * link's #fragment, or ask for the password (PBKDF2-SHA-256); decrypt the whole envelope with
 * WebCrypto's AES-256-GCM, inflate it (DecompressionStream), and write the plain page in this
 * page's place. Nothing of the page shows before all of it is decrypted and its tag checked: a
 * missing or wrong key, a wrong password, a changed byte each show one plain sentence instead. */
(() => {
  'use strict';
  performance.mark('st-sealed-start'); // the page is in (bench/bench_seal.py times from here)
  const doc = document;
  const MAGIC = [0x53, 0x54, 0x53, 0x45]; // "STSE"
  const KEY_VERSION = 1;
  const PASSWORD_VERSION = 2;
  const MIN_ITERATIONS = 100000;
  const statusLine = doc.getElementById('st-sealed-status');
  const errorLine = doc.getElementById('st-sealed-error');

  function say(text) { statusLine.textContent = text; errorLine.textContent = ''; }
  function fail(text) { statusLine.textContent = ''; errorLine.textContent = text; }

  function fromBase64(text) {
    if (Uint8Array.fromBase64) return Uint8Array.fromBase64(text);
    return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  }

  // The envelope's parts, or null when it is not one this script knows (damaged or newer).
  function readEnvelope() {
    let bytes;
    try { bytes = fromBase64(doc.getElementById('st-sealed').textContent.trim()); } catch (_) { return null; }
    if (bytes.length < 5 || MAGIC.some((b, i) => bytes[i] !== b)) return null;
    const version = bytes[4];
    let headerLength = 5;
    let iterations = 0;
    let salt = null;
    if (version === PASSWORD_VERSION) {
      headerLength = 5 + 4 + 16;
      if (bytes.length < headerLength) return null;
      iterations = new DataView(bytes.buffer, bytes.byteOffset + 5, 4).getUint32(0);
      salt = bytes.slice(9, headerLength);
      if (iterations < MIN_ITERATIONS) return null;
    } else if (version !== KEY_VERSION) {
      return null;
    }
    if (bytes.length < headerLength + 12 + 16) return null;
    return {
      version,
      iterations,
      salt,
      nonce: bytes.slice(headerLength, headerLength + 12),
      aad: bytes.slice(0, headerLength + 12),
      sealed: bytes.subarray(headerLength + 12),
    };
  }

  // The plain page's text; throws on a wrong key or any changed byte (the tag is checked first).
  async function unseal(envelope, key) {
    const packed = await crypto.subtle.decrypt(
      { name: 'AES-GCM', iv: envelope.nonce, additionalData: envelope.aad, tagLength: 128 }, key, envelope.sealed);
    // Written whole into the inflater (a Response or Blob around it measured slower in Chromium).
    const inflater = new DecompressionStream('deflate-raw');
    const writer = inflater.writable.getWriter();
    writer.write(packed).catch(() => {});
    writer.close().catch(() => {});
    return new Response(inflater.readable).text();
  }

  function show(html) {
    performance.mark('st-sealed-opened');
    // The plain page takes this one's place, in this document: its own meta policy joins this
    // page's (which lists the viewer's hashes), so its viewer runs and nothing else would.
    doc.open();
    doc.write(html);
    doc.close();
  }

  function keyFromFragment() {
    const text = location.hash.replace(/^#/, '');
    if (!/^[A-Za-z0-9_-]{43}$/.test(text)) return null;
    return fromBase64(text.replace(/-/g, '+').replace(/_/g, '/') + '=');
  }

  async function openWithKey(envelope) {
    const raw = keyFromFragment();
    if (raw === null) {
      fail(location.hash.length > 1
        ? 'This link\u2019s key is not whole: copy the entire link, with everything after #.'
        : 'This page is encrypted: open it with the whole link it was shared with, including the key after #.');
      return;
    }
    let html;
    try {
      const key = await crypto.subtle.importKey('raw', raw, { name: 'AES-GCM' }, false, ['decrypt']);
      html = await unseal(envelope, key);
    } catch (_) {
      fail('This page cannot be opened: the key in the link is not its key, or the page was changed.');
      return;
    }
    show(html);
  }

  function askPassword(envelope) {
    const form = doc.getElementById('st-sealed-form');
    const field = doc.getElementById('st-sealed-password');
    const button = doc.getElementById('st-sealed-open');
    let busy = false;
    form.hidden = false;
    say('');
    field.focus();
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      if (busy) return;
      if (!field.value) { fail('Type the password first.'); field.focus(); return; }
      busy = true;
      button.disabled = true;
      say('Opening\u2026');
      let html;
      try {
        const material = await crypto.subtle.importKey(
          'raw', new TextEncoder().encode(field.value), 'PBKDF2', false, ['deriveKey']);
        const key = await crypto.subtle.deriveKey(
          { name: 'PBKDF2', hash: 'SHA-256', salt: envelope.salt, iterations: envelope.iterations },
          material, { name: 'AES-GCM', length: 256 }, false, ['decrypt']);
        html = await unseal(envelope, key);
      } catch (_) {
        busy = false;
        button.disabled = false;
        fail('Wrong password');
        field.select();
        field.focus();
        return;
      }
      show(html);
    });
  }

  function start() {
    if (!window.crypto || !crypto.subtle || typeof DecompressionStream !== 'function') {
      fail('This browser cannot decrypt this page here: open it over https or from a file, in a current browser.');
      return;
    }
    const envelope = readEnvelope();
    if (envelope === null) {
      fail('This page is damaged or was made by a newer sessiontree: it cannot be opened.');
      return;
    }
    if (envelope.version === PASSWORD_VERSION) { askPassword(envelope); return; }
    // A key pasted after '#' (or a corrected one) changes only the fragment: no reload comes.
    window.addEventListener('hashchange', () => openWithKey(envelope));
    openWithKey(envelope);
  }

  start();
})();
