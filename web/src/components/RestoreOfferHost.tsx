// Shows the restore offer (a new device, an account with a backup) when there is one; the dialog
// and its validation load only then.
import { lazy } from 'preact-iso';
import { restoreOffer } from '../state/restore-offer.ts';

const RestoreOfferDialog = lazy(() => import('../routes/backups/RestoreOfferDialog.tsx'));

export function RestoreOfferHost() {
  return restoreOffer.offered.value ? <RestoreOfferDialog /> : null;
}
