export default function RestoreOfferDialog() {
  return null;
}
