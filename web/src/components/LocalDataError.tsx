// IndexedDB refused to open (private mode with storage disabled, a full disk, a blocked upgrade).
export function LocalDataError() {
  return (
    <div class="page">
      <h1 class="page-title">Your data on this device cannot be opened</h1>
      <p>
        The browser refused access to its storage. This happens in some private windows, when the disk is full, or when
        another studyhall tab is updating its data.
      </p>
      <p>
        <button type="button" class="button button-primary" onClick={() => location.reload()}>
          Reload
        </button>
      </p>
    </div>
  );
}
