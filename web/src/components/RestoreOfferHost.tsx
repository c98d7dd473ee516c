// Shows the restore offer (a new device, an account with a backup) when there is one; the dialog
// and its validation load only then.
import { restoreOffer } from '../state/restore-offer.ts';
import { Lazy } from './Lazy.tsx';

const loadDialog = () => import('../routes/backups/RestoreOfferDialog.tsx');

export function RestoreOfferHost() {
  return restoreOffer.offered.value ? <Lazy load={loadDialog} props={{}} /> : null;
}
